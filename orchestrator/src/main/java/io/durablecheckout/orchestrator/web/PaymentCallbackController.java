package io.durablecheckout.orchestrator.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablecheckout.activities.simulator.WebhookSignature;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.command.RecordProviderNotificationCommand;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;

/**
 * Payment provider notifications (webhooks). Authenticated by their HMAC signature, not an API key. Providers deliver
 * twice, late and out of order: each notification is logged once with a delivery count, and the checkout decides
 * whether it is news (outcome unknown), a duplicate (same as recorded: nothing happens) or a contradiction (manual
 * review, not applied). The log row and the checkout's decision commit in one transaction.
 */
@RestController
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
public class PaymentCallbackController {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String UPSERT = "INSERT INTO provider_notifications (notification_id, "
            + "authorization_operation_id, checkout_id, status, provider_reference) VALUES (?, ?, ?, ?, ?) "
            + "ON CONFLICT (notification_id) DO UPDATE SET deliveries = provider_notifications.deliveries + 1, "
            + "last_received_at = now() RETURNING deliveries";
    private static final String SUFFIX = "/" + Step.AUTHORIZE_PAYMENT.slug();
    private static final int MAX_FIELD = 255;

    private final CommandGateway commands;
    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final Clock clock;
    private final String secret;

    public PaymentCallbackController(CommandGateway commands, JdbcTemplate jdbc, TransactionTemplate transactions,
                                     Clock clock, Environment env) {
        this.commands = commands;
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.clock = clock;
        this.secret = env.getProperty("checkout.payments.webhook-secret",
                env.getProperty("checkout.simulator.webhooks.secret", WebhookSignature.DEFAULT_SECRET));
    }

    @PostMapping("/api/v1/payment-callbacks")
    public ResponseEntity<Map<String, String>> receive(
            @RequestHeader(name = WebhookSignature.HEADER, required = false) String signature,
            @RequestBody(required = false) byte[] body) {
        if (signature == null || body == null || !WebhookSignature.verify(secret, body, signature)) {
            throw new ApiProblemException(HttpStatus.UNAUTHORIZED, "invalid-signature", "Invalid signature",
                    "The notification's " + WebhookSignature.HEADER + " header does not match its body");
        }
        JsonNode n;
        try {
            n = JSON.readTree(new String(body, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "malformed-request", "Malformed notification",
                    "The notification is not valid JSON");
        }
        String notificationId = n.path("eventId").asText(null);
        String operationId = n.path("operationId").asText(null);
        String status = n.path("status").asText(null);
        if (notificationId == null || operationId == null || !operationId.endsWith(SUFFIX)
                || !("AUTHORIZED".equals(status) || "DECLINED".equals(status))) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid notification",
                    "Expected eventId, an authorization operationId (…" + SUFFIX + ") and status AUTHORIZED or DECLINED");
        }
        String checkoutId = operationId.substring(0, operationId.length() - SUFFIX.length());
        String reference = n.path("reference").asText(null);
        // Bounded like every other write (the evidence is kept in events and the read model): an over-long value is
        // the sender's mistake, answered 400 before anything is recorded.
        for (Map.Entry<String, String> field : Map.of("eventId", notificationId, "operationId", operationId,
                "reference", reference == null ? "" : reference).entrySet()) {
            if (field.getValue().length() > MAX_FIELD) {
                throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid notification",
                        field.getKey() + ": at most " + MAX_FIELD + " characters, was " + field.getValue().length());
            }
        }
        String outcome = transactions.execute(tx -> {
            Integer deliveries = jdbc.queryForObject(UPSERT, Integer.class, notificationId, operationId, checkoutId,
                    status, reference);
            if (deliveries == null || deliveries > 1) {
                return "duplicate"; // the first delivery already reached the checkout
            }
            commands.sendAndWait(new RecordProviderNotificationCommand(new CheckoutId(checkoutId),
                    new OperationId(operationId), PaymentLookupOutcome.valueOf(status), reference, notificationId,
                    clock.instant()));
            return "delivered";
        });
        return ResponseEntity.accepted().body(Map.of("notificationId", notificationId, "result", outcome));
    }
}
