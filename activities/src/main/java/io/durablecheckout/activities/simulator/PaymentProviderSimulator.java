package io.durablecheckout.activities.simulator;

import io.durablecheckout.activities.payments.ProviderProtocol;
import io.durablecheckout.activities.payments.ProviderProtocol.AuthorizationRequest;
import io.durablecheckout.activities.payments.ProviderProtocol.AuthorizationResponse;
import io.durablecheckout.activities.payments.ProviderProtocol.CaptureResponse;
import io.durablecheckout.activities.payments.ProviderProtocol.CompensationRequest;
import io.durablecheckout.activities.payments.ProviderProtocol.CompensationResponse;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Component;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A payment provider, simulated, speaking {@link ProviderProtocol} under {@code /simulator/provider/v1}, served only by
 * {@link SimulatorServer} on a loopback port of its own, never on the application's port (issue 53: there anyone
 * could have decided a predicted operation first). Behaviour
 * is chosen by the payment token (see {@link PaymentTokenBehaviour}). Like a real provider it decides once per
 * operation id, records the decision durably before answering (in its own committed transaction), and answers a
 * repeated request from the record at once. Artificial delays happen after the commit and outside any transaction,
 * so a client that times out leaves a decided, look-up-able operation behind: the situation reconciliation exists
 * for.
 */
@Component
@ConditionalOnProperty(name = "checkout.simulator.enabled", havingValue = "true", matchIfMissing = true)
public class PaymentProviderSimulator {

    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    private static final String REQUIRES_ACTION = "REQUIRES_ACTION";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final SimulatorLedger ledger;
    private final SimulatorWebhookSender webhooks;
    private final SimulatorProperties properties;
    private final SimulatorFaults faults;

    private final org.springframework.core.env.Environment environment;

    public PaymentProviderSimulator(SimulatorLedger ledger, SimulatorWebhookSender webhooks,
                                    SimulatorProperties properties, SimulatorFaults faults,
                                    org.springframework.core.env.Environment environment) {
        this.ledger = ledger;
        this.webhooks = webhooks;
        this.properties = properties;
        this.faults = faults;
        this.environment = environment;
    }

    public ResponseEntity<AuthorizationResponse> authorize(String idempotencyKey, AuthorizationRequest request) {
        if (request.operationId() == null || request.operationId().isBlank()
                || !request.operationId().equals(idempotencyKey)) {
            ledger.logCall("AUTHORIZE", request.operationId(), idempotencyKey);
            return ResponseEntity.badRequest().body(new AuthorizationResponse(request.operationId(), "INVALID", null,
                    "Idempotency-Key must equal operationId"));
        }
        if (request.currency() == null || !CURRENCY.matcher(request.currency()).matches() || request.amountMinor() < 0) {
            ledger.logCall("AUTHORIZE", request.operationId(), idempotencyKey);
            return ResponseEntity.badRequest().body(new AuthorizationResponse(request.operationId(), "INVALID", null,
                    "invalid amount"));
        }
        PaymentTokenBehaviour behaviour = PaymentTokenBehaviour.of(request.paymentToken());
        // Logs the call too: in the same statement as the decision for a first request (SimulatorLedger).
        SimulatorLedger.AuthorizeResult result = ledger.logAndAuthorize(request, idempotencyKey, behaviour,
                properties.downForAttempts());
        if (result.refused()) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(new AuthorizationResponse(
                    request.operationId(), "UNAVAILABLE", null, "provider temporarily unavailable"));
        }
        SimulatorLedger.Authorization authorization = result.authorization();
        if (result.fresh()) {
            // tok_long_reference sends none: the parked intent stays the only way its checkout learns the outcome
            if (!"PENDING".equals(authorization.status()) && !REQUIRES_ACTION.equals(authorization.status())
                    && behaviour != PaymentTokenBehaviour.LONG_REFERENCE) {
                webhooks.decided(authorization);
            }
            if (behaviour == PaymentTokenBehaviour.THREE_DS) { // the customer authenticates a little later
                webhooks.later(properties.threeDsDelay(), () -> authenticate(authorization.operationId()));
            }
            // Committed above; now hold the answer like a slow or stuck provider would.
            switch (behaviour.hold) {
                case TIMEOUT -> pause(properties.timeoutDelay());
                case SLOW -> pause(properties.slowDelay());
                case NONE -> {
                }
            }
        }
        AuthorizationResponse response = REQUIRES_ACTION.equals(authorization.status())
                ? new AuthorizationResponse(authorization.operationId(), ProviderProtocol.REQUIRES_ACTION,
                        authorization.reference(), null, nextAction(authorization.operationId()))
                : response(authorization);
        if (behaviour == PaymentTokenBehaviour.LONG_REFERENCE && faults.oversizedReferences()
                && response.reference() != null) {
            response = new AuthorizationResponse(response.operationId(), response.status(),
                    response.reference() + "-" + "X".repeat(SimulatorFaults.OVERSIZED_REFERENCE_LENGTH),
                    response.reason());
        }
        return ResponseEntity.ok(response);
    }

    /**
     * The customer authenticated {@code operationId} (3-D Secure): {@code tok_3ds}'s timer, or a GET of the page its
     * next action names. AUTHORIZED from now on, and the webhook says so; false when nothing was waiting (unknown,
     * decided, or voided meanwhile).
     */
    public boolean authenticate(String operationId) {
        Optional<SimulatorLedger.Authorization> authorized = ledger.authenticate(stripLeadingSlash(operationId));
        authorized.ifPresent(webhooks::decided);
        return authorized.isPresent();
    }

    /** Stripe's shape of a redirect: the simulator's own page for the operation, on its loopback server. */
    private JsonNode nextAction(String operationId) {
        ObjectNode action = JSON.createObjectNode().put("type", "redirect_to_url");
        action.putObject("redirect_to_url")
                .put("url", "http://127.0.0.1:" + environment.getProperty(SimulatorServer.PORT_PROPERTY, "0")
                        + SimulatorServer.THREE_DS_PREFIX + "/" + ProviderProtocol.pathOf(operationId))
                .putNull("return_url");
        return action;
    }

    /** {@code GET /{operationId}} (the path after the prefix, leading '/' included or not). */
    public ResponseEntity<AuthorizationResponse> lookup(String operationId, String lookupKey) {
        String id = stripLeadingSlash(operationId);
        ledger.logCall("LOOKUP", id, lookupKey);
        return ledger.find(id)
                .map(authorization -> ResponseEntity.ok(response(authorization)))
                .orElseGet(() -> ResponseEntity.status(HttpStatus.NOT_FOUND)
                        .body(new AuthorizationResponse(id, ProviderProtocol.NOT_FOUND, null, null)));
    }

    /** {@code POST /{operationId}/void} and {@code /{operationId}/refund}; operation ids contain '/'. */
    public ResponseEntity<CompensationResponse> compensate(String path, String idempotencyKey,
                                                           CompensationRequest request) {
        String rest = stripLeadingSlash(path);
        String action;
        String authorizationOperationId;
        if (rest.endsWith("/void")) {
            action = "VOID";
            authorizationOperationId = rest.substring(0, rest.length() - "/void".length());
        } else if (rest.endsWith("/refund")) {
            action = "REFUND";
            authorizationOperationId = rest.substring(0, rest.length() - "/refund".length());
        } else {
            return ResponseEntity.notFound().build();
        }
        ledger.logCall(action, authorizationOperationId, idempotencyKey);
        if (idempotencyKey == null || idempotencyKey.isBlank() || authorizationOperationId.isBlank()) {
            return ResponseEntity.badRequest().body(new CompensationResponse(idempotencyKey, authorizationOperationId,
                    "INVALID", null, "Idempotency-Key required"));
        }
        SimulatorLedger.CompensationResult result = ledger.compensate(action, authorizationOperationId,
                idempotencyKey, request == null ? null : request.amountMinor(),
                request == null ? null : request.currency());
        return ResponseEntity.status(result.httpStatus()).body(new CompensationResponse(idempotencyKey,
                authorizationOperationId, result.status(), result.reference(), result.reason()));
    }

    /** {@code POST /{operationId}/capture}: the path after the prefix, ending in {@code /capture}. */
    public ResponseEntity<CaptureResponse> capture(String path, String idempotencyKey, CompensationRequest request) {
        String rest = stripLeadingSlash(path);
        String authorizationOperationId = rest.substring(0, rest.length() - "/capture".length());
        ledger.logCall("CAPTURE", authorizationOperationId, idempotencyKey);
        String invalid = idempotencyKey == null || idempotencyKey.isBlank() || authorizationOperationId.isBlank()
                ? "Idempotency-Key required"
                : request != null && request.operationId() != null && !request.operationId().equals(idempotencyKey)
                ? "Idempotency-Key must equal operationId"
                : request != null && request.currency() != null && !CURRENCY.matcher(request.currency()).matches()
                ? "invalid currency" : null;
        if (invalid != null) {
            return ResponseEntity.badRequest().body(new CaptureResponse(idempotencyKey, authorizationOperationId,
                    "INVALID", null, invalid, null, null));
        }
        SimulatorLedger.CaptureResult result = ledger.capture(authorizationOperationId, idempotencyKey,
                request == null ? null : request.amountMinor(), request == null ? null : request.currency());
        if (result.hold()) {
            pause(properties.timeoutDelay()); // committed (or lost) above; the client gives up meanwhile
        }
        return ResponseEntity.status(result.httpStatus()).body(new CaptureResponse(idempotencyKey,
                authorizationOperationId, result.status(), result.reference(), result.reason(), result.capturedMinor(),
                result.currency()));
    }

    /** As recorded; waiting for the customer reads as PENDING (a lookup learns nothing before they act). */
    private static AuthorizationResponse response(SimulatorLedger.Authorization authorization) {
        return new AuthorizationResponse(authorization.operationId(),
                REQUIRES_ACTION.equals(authorization.status()) ? ProviderProtocol.PENDING : authorization.status(),
                authorization.reference(), authorization.reason());
    }

    private static String stripLeadingSlash(String path) {
        return path.startsWith("/") ? path.substring(1) : path;
    }

    private static void pause(Duration delay) {
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
