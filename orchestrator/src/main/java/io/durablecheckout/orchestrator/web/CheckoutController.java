package io.durablecheckout.orchestrator.web;

import io.durablecheckout.orchestrator.service.CheckoutRequest;
import io.durablecheckout.orchestrator.service.CheckoutService;
import io.durablecheckout.orchestrator.http.TextLimits;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.checkout.CheckoutState;
import io.durablecheckout.orchestrator.readmodel.CheckoutView;
import io.durablecheckout.orchestrator.tenancy.Caller;
import io.durablecheckout.orchestrator.checkout.OperatorMetadata;
import io.durablecheckout.orchestrator.tenancy.AuditLog;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.messaging.MetaData;
import org.axonframework.eventhandling.DomainEventMessage;
import io.durablecheckout.orchestrator.serialization.PlainShapes;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
@RestController
@RequestMapping("/api/v1/checkouts")
public class CheckoutController {

    private final CheckoutService checkouts;
    private final CommandGateway commands;
    private final Clock clock;
    private final AuditLog audit;

    public CheckoutController(CheckoutService checkouts, CommandGateway commands, Clock clock, AuditLog audit) {
        this.checkouts = checkouts;
        this.commands = commands;
        this.clock = clock;
        this.audit = audit;
    }

    public record Accepted(String checkoutId, String state, Map<String, String> links) {
    }

    public record HistoryEntry(long sequence, String type, Instant timestamp, Object payload,
                               Map<String, Object> metadata) {
    }

    public record CancelRequest(String reason) {
    }

    /** {@code amount}: what to capture, at most the authorized amount; absent: all of it. */
    public record CaptureRequest(io.durablecheckout.orchestrator.service.CheckoutRequest.Amount amount) {
    }

    @PostMapping
    public ResponseEntity<Accepted> start(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                          @RequestHeader(name = "Idempotency-Key", required = false) String idempotencyKey,
                                          @RequestBody(required = false) CheckoutRequest request) {
        CheckoutService.Submitted submitted = checkouts.submit(new TenantId(caller.tenantId()), idempotencyKey, request);
        String id = submitted.checkoutId().value();
        String state = submitted.replayed()
                ? checkouts.find(caller, id).map(v -> v.state).orElse(CheckoutState.CREATED.wireName())
                : CheckoutState.CREATED.wireName();
        return ResponseEntity.accepted()
                .location(URI.create("/api/v1/checkouts/" + id))
                .header("Idempotent-Replayed", Boolean.toString(submitted.replayed()))
                .body(new Accepted(id, state, links(id)));
    }

    /** The checkout with what is known and pending. ETag = its version, for an operator's If-Match. */
    @GetMapping("/{checkoutId}")
    public ResponseEntity<CheckoutView> get(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                            @PathVariable String checkoutId) {
        CheckoutView view = checkouts.find(caller, checkoutId).orElseThrow(() -> notFound(checkoutId));
        return ResponseEntity.ok().eTag("\"" + view.version + "\"").body(view);
    }

    @GetMapping("/{checkoutId}/history")
    public List<HistoryEntry> history(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                      @PathVariable String checkoutId) {
        List<DomainEventMessage<?>> events = checkouts.history(caller, checkoutId);
        if (events.isEmpty()) {
            throw notFound(checkoutId);
        }
        // plain shapes: ids as strings, not {"value": ...} (the store's own shape)
        return events.stream().map(m -> new HistoryEntry(m.getSequenceNumber(), m.getPayloadType().getSimpleName(),
                m.getTimestamp(), checkouts.revealedPayload(checkoutId, PlainShapes.of(m.getPayload())),
                plainMetadata(m.getMetaData()))).toList();
    }

    /**
     * Lists checkouts, newest first. {@code waiting=true} shows only those not in a terminal state: what is in flight
     * or stuck, each with its reason and next deadline.
     */
    @GetMapping
    public List<CheckoutView> list(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                   @RequestParam(required = false) String state,
                                   @RequestParam(defaultValue = "false") boolean waiting,
                                   @RequestParam(defaultValue = "50") int limit) {
        if (state != null && Arrays.stream(CheckoutState.values()).noneMatch(s -> s.wireName().equals(state))) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Unknown state",
                    "state must be one of " + Arrays.stream(CheckoutState.values()).map(CheckoutState::wireName).toList());
        }
        if (limit < 1 || limit > 500) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid limit",
                    "limit must be between 1 and 500");
        }
        return checkouts.list(caller, state, waiting, limit);
    }

    /** A customer's cancellation: compensations run for whatever was done (release, void or refund, notice). */
    @PostMapping("/{checkoutId}/cancel")
    public ResponseEntity<Accepted> cancel(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                           @PathVariable String checkoutId,
                                           @RequestBody(required = false) CancelRequest body) {
        // a customer's write: its own tenant's checkouts only, whatever else the key may read (operators cancel
        // through the operator API, which records the actor)
        Caller customer = new Caller(caller.tenantId(), java.util.EnumSet.of(Caller.Role.TENANT), caller.keyId());
        checkouts.find(customer, checkoutId).orElseThrow(() -> notFound(checkoutId));
        java.util.List<String> errors = new java.util.ArrayList<>();
        String given = body == null ? null : TextLimits.text(body.reason(), "reason", TextLimits.REASON_MAX, false, errors);
        if (!errors.isEmpty()) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid cancellation",
                    errors.get(0), errors);
        }
        String reason = given == null ? "customer request" : given;
        Instant now = clock.instant();
        // who asked travels on every event the cancellation causes, as an operator's action does
        commands.sendAndWait(GenericCommandMessage.asCommandMessage(new RequestCancellationCommand(
                new CheckoutId(checkoutId), CancellationReason.CUSTOMER_REQUEST, reason, null, now)).andMetaData(
                MetaData.with(OperatorMetadata.ACTOR, "tenant:" + caller.actor())
                        .and(OperatorMetadata.REASON, reason)
                        .and(OperatorMetadata.ACTED_AT, now.toString())));
        audit.record(caller, "checkout.CustomerCancellation", "checkout:" + checkoutId, reason, null);
        String state = checkouts.find(caller, checkoutId).map(v -> v.state).orElse(null);
        return ResponseEntity.accepted().location(URI.create("/api/v1/checkouts/" + checkoutId))
                .body(new Accepted(checkoutId, state, links(checkoutId)));
    }

    /**
     * The tenant captures a deferred checkout's payment as it ships. Asked again with the same amount (a retry under
     * the same Idempotency-Key) it changes nothing and answers the same; another amount once a capture was asked for
     * is refused (409), as is a capture of a checkout captured on confirmation.
     */
    @PostMapping("/{checkoutId}/capture")
    public ResponseEntity<Accepted> capture(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                            @PathVariable String checkoutId,
                                            @RequestBody(required = false) CaptureRequest body) {
        Caller customer = new Caller(caller.tenantId(), java.util.EnumSet.of(Caller.Role.TENANT), caller.keyId());
        checkouts.find(customer, checkoutId).orElseThrow(() -> notFound(checkoutId));
        io.durablecheckout.api.values.Money amount = null;
        if (body != null && body.amount() != null) {
            Long minor = body.amount().minor();
            String currency = body.amount().currency();
            java.util.List<String> errors = new java.util.ArrayList<>();
            if (minor == null || minor <= 0) {
                errors.add("amount.minor: a positive integer in minor units is required");
            }
            if (currency == null || !currency.matches("[A-Z]{3}")) {
                errors.add("amount.currency: the checkout's 3-letter ISO 4217 currency code is required");
            }
            if (!errors.isEmpty()) {
                throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid capture",
                        String.join("; ", errors), errors);
            }
            amount = new io.durablecheckout.api.values.Money(minor, currency);
        }
        Instant now = clock.instant();
        commands.sendAndWait(GenericCommandMessage.asCommandMessage(new io.durablecheckout.api.command
                .CapturePaymentCommand(new CheckoutId(checkoutId), amount, now)).andMetaData(
                MetaData.with(OperatorMetadata.ACTOR, "tenant:" + caller.actor())
                        .and(OperatorMetadata.ACTED_AT, now.toString())));
        audit.record(caller, "checkout.Capture", "checkout:" + checkoutId, amount == null ? "all" : amount.toString(),
                null);
        String state = checkouts.find(caller, checkoutId).map(v -> v.state).orElse(null);
        return ResponseEntity.accepted().location(URI.create("/api/v1/checkouts/" + checkoutId))
                .body(new Accepted(checkoutId, state, links(checkoutId)));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> plainMetadata(Map<String, ?> metaData) {
        return (Map<String, Object>) PlainShapes.of(metaData);
    }

    static Map<String, String> links(String id) {
        return Map.of("self", "/api/v1/checkouts/" + id, "history", "/api/v1/checkouts/" + id + "/history");
    }

    static ApiProblemException notFound(String id) {
        return new ApiProblemException(HttpStatus.NOT_FOUND, "not-found", "No such checkout",
                "No checkout " + TextLimits.excerpt(id) + " for this API key");
    }
}
