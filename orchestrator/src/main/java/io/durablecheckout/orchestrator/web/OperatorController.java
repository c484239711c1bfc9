package io.durablecheckout.orchestrator.web;

import io.durablecheckout.orchestrator.service.CheckoutService;
import io.durablecheckout.orchestrator.http.TextLimits;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.command.RefundPaymentCommand;
import io.durablecheckout.api.command.SettleHoldCommand;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.orchestrator.checkout.OperatorMetadata;
import io.durablecheckout.orchestrator.readmodel.CheckoutView;
import io.durablecheckout.orchestrator.tenancy.AuditLog;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.messaging.MetaData;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.Locale;

/**
 * Manual repair, for operator keys only. Every action names the version it was decided on ({@code If-Match}, as in
 * the checkout's {@code version}/ETag) and a reason; who, why and when are recorded as metadata on the events the
 * action causes. A stale version gets 412 and changes nothing.
 */
@RestController
@RequestMapping("/api/v1/operator/checkouts/{checkoutId}")
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
public class OperatorController {

    private final CommandGateway commands;
    private final CheckoutService checkouts;
    private final Clock clock;
    private final AuditLog audit;

    public OperatorController(CommandGateway commands, CheckoutService checkouts, Clock clock, AuditLog audit) {
        this.commands = commands;
        this.checkouts = checkouts;
        this.clock = clock;
        this.audit = audit;
    }

    /** @param resolution {@code authorized} or {@code declined}; {@code providerReference} required for authorized */
    public record ResolveRequest(String resolution, String providerReference, String reason) {
    }

    public record ActionRequest(String reason) {
    }

    /** @param amount in minor units, at most what was captured and not refunded yet, in the captured currency */
    public record RefundRequest(io.durablecheckout.orchestrator.service.CheckoutRequest.Amount amount, String reason) {
    }

    @PostMapping("/resolve")
    public ResponseEntity<CheckoutView> resolve(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                                @PathVariable String checkoutId,
                                                @RequestHeader(name = "If-Match", required = false) String ifMatch,
                                                @RequestBody(required = false) ResolveRequest body) {
        requireOperator(caller); // who may act is answered before what is wrong with the request
        if (body == null || body.resolution() == null) {
            throw invalid("resolution: required, 'authorized' or 'declined'");
        }
        ManualResolution resolution;
        try {
            resolution = ManualResolution.valueOf(body.resolution().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw invalid("resolution: 'authorized' or 'declined', was '" + TextLimits.excerpt(body.resolution()) + "'");
        }
        if (body.providerReference() != null) {
            java.util.List<String> errors = new java.util.ArrayList<>();
            TextLimits.text(body.providerReference(), "providerReference", 255, false, errors);
            if (!errors.isEmpty()) throw invalid(errors.get(0));
        }
        return act(caller, checkoutId, ifMatch, body.reason(), (id, version, now, reason) ->
                new ResolveManualReviewCommand(id, resolution, body.providerReference(), reason, version, now));
    }

    @PostMapping("/retry")
    public ResponseEntity<CheckoutView> retry(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                              @PathVariable String checkoutId,
                                              @RequestHeader(name = "If-Match", required = false) String ifMatch,
                                              @RequestBody(required = false) ActionRequest body) {
        return act(caller, checkoutId, ifMatch, body == null ? null : body.reason(),
                (id, version, now, reason) -> new RetryActivityCommand(id, version, now));
    }

    @PostMapping("/cancel")
    public ResponseEntity<CheckoutView> cancel(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                               @PathVariable String checkoutId,
                                               @RequestHeader(name = "If-Match", required = false) String ifMatch,
                                               @RequestBody(required = false) ActionRequest body) {
        return act(caller, checkoutId, ifMatch, body == null ? null : body.reason(), (id, version, now, reason) ->
                new RequestCancellationCommand(id, CancellationReason.OPERATOR_REQUEST, reason, version, now));
    }

    /**
     * A partial refund of a completed checkout's captured money, under an operation id of its own (decision 130); the
     * aggregate refuses (409) an amount of 0, above what was captured less refunded, in another currency, or where
     * nothing was captured.
     */
    @PostMapping("/refund")
    public ResponseEntity<CheckoutView> refund(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                               @PathVariable String checkoutId,
                                               @RequestHeader(name = "If-Match", required = false) String ifMatch,
                                               @RequestBody(required = false) RefundRequest body) {
        requireOperator(caller);
        Money amount = refundAmount(body == null ? null : body.amount());
        return act(caller, checkoutId, ifMatch, body == null ? null : body.reason(), (id, version, now, reason) ->
                new RefundPaymentCommand(id, amount, version, now));
    }

    /** The hold of a checkout completed before capture was a step, captured (decision 131). */
    @PostMapping("/capture-hold")
    public ResponseEntity<CheckoutView> captureHold(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                                    @PathVariable String checkoutId,
                                                    @RequestHeader(name = "If-Match", required = false) String ifMatch,
                                                    @RequestBody(required = false) ActionRequest body) {
        return act(caller, checkoutId, ifMatch, body == null ? null : body.reason(),
                (id, version, now, reason) -> new SettleHoldCommand(id, true, version, now));
    }

    /** The hold of a checkout completed before capture was a step, released: voided (decision 131). */
    @PostMapping("/release-hold")
    public ResponseEntity<CheckoutView> releaseHold(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                                    @PathVariable String checkoutId,
                                                    @RequestHeader(name = "If-Match", required = false) String ifMatch,
                                                    @RequestBody(required = false) ActionRequest body) {
        return act(caller, checkoutId, ifMatch, body == null ? null : body.reason(),
                (id, version, now, reason) -> new SettleHoldCommand(id, false, version, now));
    }

    /** A refund's amount as sent: minor units and a 3-letter currency, else 400 (its size is the aggregate's rule). */
    public static Money refundAmount(io.durablecheckout.orchestrator.service.CheckoutRequest.Amount amount) {
        if (amount == null || amount.minor() == null || amount.currency() == null
                || !amount.currency().matches("[A-Z]{3}")) {
            throw invalid("amount: required, {\"minor\": an integer in minor units, \"currency\": the captured "
                    + "3-letter ISO 4217 code}");
        }
        return new Money(amount.minor(), amount.currency());
    }

    /** What every operator action takes: the operator, the version it was decided on, a reason, a known checkout. */
    private interface Action {
        Object command(CheckoutId checkoutId, long version, Instant now, String reason);
    }

    private ResponseEntity<CheckoutView> act(Caller caller, String checkoutId, String ifMatch, String reason,
                                             Action action) {
        requireOperator(caller);
        long version = version(ifMatch);
        String why = requireReason(reason);
        Instant now = clock.instant();
        exists(caller, checkoutId);
        Object command = action.command(new CheckoutId(checkoutId), version, now, why);
        send(command, caller, why, now);
        // After the command succeeded (a refused action is not audited as done); the events carry who/why too.
        audit.record(caller, "checkout." + command.getClass().getSimpleName().replace("Command", ""),
                "checkout:" + checkoutId, why, "version=" + version + (command instanceof RefundPaymentCommand r
                        ? " amount=" + r.amount() : command instanceof SettleHoldCommand h
                        ? (h.capture() ? " capture" : " release") : ""));
        return current(caller, checkoutId);
    }

    private void send(Object command, Caller caller, String reason, Instant now) {
        commands.sendAndWait(GenericCommandMessage.asCommandMessage(command).andMetaData(MetaData.with(
                        OperatorMetadata.ACTOR, "operator:" + caller.tenantId())
                .and(OperatorMetadata.REASON, reason)
                .and(OperatorMetadata.ACTED_AT, now.toString())));
    }

    private ResponseEntity<CheckoutView> current(Caller caller, String checkoutId) {
        CheckoutView view = checkouts.find(caller, checkoutId).orElseThrow(() -> CheckoutController.notFound(checkoutId));
        return ResponseEntity.accepted().location(URI.create("/api/v1/checkouts/" + checkoutId))
                .eTag("\"" + view.version + "\"").body(view);
    }

    private void exists(Caller caller, String checkoutId) {
        checkouts.find(caller, checkoutId).orElseThrow(() -> CheckoutController.notFound(checkoutId));
    }

    private static void requireOperator(Caller caller) {
        if (!caller.has(Caller.Role.OPERATOR_REPAIR)) {
            throw new ApiProblemException(HttpStatus.FORBIDDEN, "forbidden", "Operators only",
                    "This action needs an operator API key");
        }
    }

    /** If-Match: "7" (or 7, or W/"7"): the checkout version the operator looked at. */
    static long version(String ifMatch) {
        if (ifMatch == null || ifMatch.isBlank()) {
            throw new ApiProblemException(HttpStatus.PRECONDITION_REQUIRED, "version-required", "If-Match required",
                    "Send If-Match with the checkout's version (its 'version' field or ETag), so an action decided on "
                            + "an outdated view is refused");
        }
        String v = ifMatch.trim().replaceFirst("^W/", "").replace("\"", "");
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid If-Match",
                    "If-Match must be the checkout's version, a number, was '" + TextLimits.excerpt(ifMatch) + "'");
        }
    }

    private static String requireReason(String reason) {
        if (reason == null || reason.isBlank()) {
            throw invalid("reason: required, why the operator acts (recorded with the action)");
        }
        java.util.List<String> errors = new java.util.ArrayList<>();
        String bounded = TextLimits.reason(reason, errors);
        if (!errors.isEmpty()) throw invalid(errors.get(0));
        return bounded;
    }

    private static ApiProblemException invalid(String error) {
        return new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid operator action", error);
    }
}
