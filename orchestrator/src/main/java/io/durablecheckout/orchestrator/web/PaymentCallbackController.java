package io.durablecheckout.orchestrator.web;

import io.durablecheckout.orchestrator.http.TextLimits;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.command.RecordProviderNotificationCommand;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import jakarta.servlet.http.HttpServletRequest;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Payment provider notifications (webhooks). Authenticated by their signature ({@link NotificationSignatures}: Standard
 * Webhooks), not an API key, checked in this order, each before anything is read or written: declared size, actual
 * size (the body is read with a cap), signature over id, timestamp and body, timestamp within the tolerance window,
 * the signed id is the body's {@code eventId}. Then, in one
 * transaction: the delivery is recorded by notification id and signed timestamp (the same pair again, however its
 * signature is spelled, is a replay, refused), the notification is
 * compared with the checkout its operation belongs to (tenant, amount, currency; a mismatch is recorded as a dispute
 * and changes nothing else), and logged once with a delivery count; the checkout decides whether it is news
 * (outcome unknown), a duplicate (nothing happens) or a contradiction (manual review, not applied).
 */
@RestController
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
public class PaymentCallbackController {

    public static final String PATH = "/api/v1/payment-callbacks";
    /** A notification is a few hundred bytes; anything much bigger is not one. */
    public static final int MAX_BODY_BYTES = 8 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String UPSERT = "INSERT INTO provider_notifications (notification_id, "
            + "authorization_operation_id, checkout_id, status, provider_reference, dispute) VALUES (?, ?, ?, ?, ?, ?) "
            + "ON CONFLICT (notification_id) DO UPDATE SET deliveries = provider_notifications.deliveries + 1, "
            + "last_received_at = now() RETURNING deliveries";
    private static final String SUFFIX = "/" + Step.AUTHORIZE_PAYMENT.slug();
    /** Ids and references: printable ASCII without quotes or backslashes, bounded (provider_reference fits 255). */
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9._:/@#+=-]{1,255}");
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    private final CommandGateway commands;
    private final EventStore eventStore;
    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final Clock clock;
    private final Map<String, NotificationSignatures> schemes;
    private final Duration tolerance;

    public PaymentCallbackController(CommandGateway commands, EventStore eventStore, JdbcTemplate jdbc,
                                     TransactionTemplate transactions, Clock clock,
                                     List<NotificationSignatures> signatures, WebhookProperties properties) {
        this.commands = commands;
        this.eventStore = eventStore;
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.clock = clock;
        this.schemes = signatures.stream().collect(java.util.stream.Collectors.toMap(
                NotificationSignatures::scheme, v -> v));
        this.tolerance = properties.webhookTolerance();
    }

    /** The generic HTTP provider's notifications (Standard Webhooks). */
    @PostMapping(PATH)
    public ResponseEntity<Map<String, String>> receive(HttpServletRequest request) throws IOException {
        return receive(NotificationSignatures.STANDARD_WEBHOOKS, request);
    }

    /** Stripe's webhooks ({@code Stripe-Signature}); 404 unless a Stripe webhook secret is configured. */
    @PostMapping(PATH + "/stripe")
    public ResponseEntity<Map<String, String>> receiveStripe(HttpServletRequest request) throws IOException {
        return receive(NotificationSignatures.STRIPE, request);
    }

    private ResponseEntity<Map<String, String>> receive(String scheme, HttpServletRequest request) throws IOException {
        NotificationSignatures signatures = schemes.get(scheme);
        if (signatures == null) {
            throw new ApiProblemException(HttpStatus.NOT_FOUND, "not-found", "No such endpoint",
                    "Notifications of this provider are not configured here");
        }
        if (request.getContentLengthLong() > MAX_BODY_BYTES) {
            throw tooLarge();
        }
        byte[] body = readAtMost(request.getInputStream(), MAX_BODY_BYTES);
        Map<String, List<String>> headers = new java.util.HashMap<>();
        for (String name : signatures.headers()) {
            String value = request.getHeader(name);
            if (value != null) headers.put(name, List.of(value));
        }
        List<String> missing = signatures.headers().stream().filter(name -> !headers.containsKey(name)).toList();
        if (!missing.isEmpty()) {
            throw new ApiProblemException(HttpStatus.UNAUTHORIZED, "missing-signature-header",
                    "Missing signature header", "The notification has no " + String.join(", ", missing) + " header"
                            + (missing.size() > 1 ? "s" : "") + " (" + scheme + " signs with "
                            + String.join(", ", signatures.headers()) + ")");
        }
        NotificationSignatures.Signed signed = body.length == 0 ? null : signatures.verify(headers, body).orElse(null);
        if (signed == null) {
            throw new ApiProblemException(HttpStatus.UNAUTHORIZED, "invalid-signature", "Invalid signature",
                    "The notification's " + String.join(", ", signatures.headers())
                            + " do not sign its body with a secret of ours");
        }
        long timestamp = signed.epochSeconds();
        long age = clock.instant().getEpochSecond() - timestamp;
        if (signed.stale() || Math.abs(age) > tolerance.toSeconds()) {
            throw new ApiProblemException(HttpStatus.UNAUTHORIZED, "stale-signature", "Stale notification",
                    "The notification was signed " + (age >= 0 ? age + " s ago" : -age + " s in the future")
                            + "; accepted: within " + tolerance.toSeconds() + " s either way");
        }
        if (signed.notification() == null) {
            // verified, but an event this product does not read (Stripe sends many kinds)
            return ResponseEntity.accepted().body(Map.of("notificationId", signed.notificationId(), "result", "ignored"));
        }
        Notification n = parse(signed.notification());
        if (!n.eventId().equals(signed.notificationId())) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid notification",
                    "The signed notification id is not the body's eventId", List.of("eventId: the signed id"));
        }
        String checkoutId = n.operationId().substring(0, n.operationId().length() - SUFFIX.length());
        String[] outcome = transactions.execute(tx -> {
            // Keyed on what the signature covers, not on its text: the same delivery re-encoded is the same delivery.
            if (jdbc.update("INSERT INTO provider_webhook_deliveries (notification_id, signed_at) VALUES (?, ?) "
                    + "ON CONFLICT DO NOTHING", n.eventId(), timestamp) == 0) {
                throw new ApiProblemException(HttpStatus.CONFLICT, "replayed-notification", "Replayed notification",
                        "This notification with this timestamp was already accepted; a redelivery is signed anew");
            }
            // Older deliveries are refused by their timestamp, so they need not be kept.
            jdbc.update("DELETE FROM provider_webhook_deliveries WHERE received_at < now() - make_interval(secs => ?)",
                    (double) tolerance.toSeconds() * 2);
            String dispute = mismatch(checkoutId, n);
            Integer deliveries = jdbc.queryForObject(UPSERT, Integer.class, n.eventId(), n.operationId(), checkoutId,
                    n.status(), n.reference(), dispute);
            if (dispute != null) {
                return new String[]{"disputed", dispute};
            }
            if (deliveries == null || deliveries > 1) {
                return new String[]{"duplicate", null}; // the first delivery already reached the checkout
            }
            commands.sendAndWait(new RecordProviderNotificationCommand(new CheckoutId(checkoutId),
                    new OperationId(n.operationId()), PaymentLookupOutcome.valueOf(n.status()), n.reference(),
                    n.eventId(), clock.instant()));
            return new String[]{"delivered", null};
        });
        if ("disputed".equals(outcome[0])) {
            // Recorded (committed above) as evidence for an operator; the checkout is untouched.
            throw new ApiProblemException(HttpStatus.CONFLICT, "notification-disputed", "Notification disputed",
                    "The notification does not match its operation: " + outcome[1]);
        }
        return ResponseEntity.accepted().body(Map.of("notificationId", n.eventId(), "result", outcome[0]));
    }

    /** What the notification says that the checkout does not, or null when it matches. */
    private String mismatch(String checkoutId, Notification n) {
        CheckoutCreatedEvent created = created(checkoutId);
        if (created == null) {
            return "no such operation";
        }
        List<String> differences = new ArrayList<>();
        if (!created.tenantId().value().equals(n.tenantId())) differences.add("tenant");
        if (created.amount().minor() != n.amountMinor()) differences.add("amount");
        if (!created.amount().currency().equals(n.currency())) differences.add("currency");
        return differences.isEmpty() ? null : String.join(", ", differences) + " differ";
    }

    private CheckoutCreatedEvent created(String checkoutId) {
        DomainEventStream stream = eventStore.readEvents(checkoutId);
        if (!stream.hasNext()) return null;
        return stream.next().getPayload() instanceof CheckoutCreatedEvent c ? c : null;
    }

    private record Notification(String eventId, String operationId, String status, String reference,
                                String tenantId, long amountMinor, String currency) {
    }

    private static Notification parse(byte[] body) {
        JsonNode n;
        try {
            n = JSON.readTree(body);
        } catch (IOException e) {
            n = null;
        }
        if (n == null || !n.isObject()) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "malformed-request", "Malformed notification",
                    "The notification is not a JSON object");
        }
        List<String> errors = new ArrayList<>();
        String eventId = token(n, "eventId", true, errors);
        String operationId = token(n, "operationId", true, errors);
        // The provider's reference, refused here when it could not be stored (255 characters, printable), like the
        // payments resource refuses it (Bounds): a notification we cannot record whole changes nothing.
        JsonNode ref = n.path("reference");
        String reference = null;
        if (!ref.isMissingNode() && !ref.isNull()) {
            if (!ref.isTextual() || ref.asText().isEmpty() || ref.asText().length() > 255
                    || !TextLimits.printable(ref.asText())) {
                errors.add("reference: 1 to 255 printable characters");
            } else {
                reference = ref.asText();
            }
        }
        String tenantId = token(n, "tenantId", true, errors);
        String status = n.path("status").isTextual() ? n.path("status").asText() : null;
        String currency = n.path("currency").isTextual() ? n.path("currency").asText() : null;
        JsonNode amount = n.path("amountMinor");
        if (operationId != null && !operationId.endsWith(SUFFIX)) errors.add("operationId: not an authorization (…" + SUFFIX + ")");
        if (!"AUTHORIZED".equals(status) && !"DECLINED".equals(status)) errors.add("status: AUTHORIZED or DECLINED");
        if (currency == null || !CURRENCY.matcher(currency).matches()) errors.add("currency: three capital letters");
        if (!amount.isIntegralNumber() || !amount.canConvertToLong() || amount.asLong() < 0) errors.add("amountMinor: a non-negative integer");
        if (!errors.isEmpty()) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid notification",
                    "The notification is incomplete or malformed", errors);
        }
        return new Notification(eventId, operationId, status, reference, tenantId, amount.asLong(), currency);
    }

    private static String token(JsonNode n, String field, boolean required, List<String> errors) {
        JsonNode v = n.path(field);
        if (v.isMissingNode() || v.isNull()) {
            if (required) errors.add(field + ": required");
            return null;
        }
        if (!v.isTextual() || !TOKEN.matcher(v.asText()).matches()) {
            errors.add(field + ": 1 to 255 characters of [A-Za-z0-9._:/@#+=-]");
            return null;
        }
        return v.asText();
    }

    /** Reads the body, refusing (413) as soon as it passes {@code max} bytes, so a large body is never held whole. */
    private static byte[] readAtMost(InputStream in, int max) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(max, 1024));
        byte[] buffer = new byte[1024];
        int total = 0;
        for (int read; (read = in.read(buffer)) != -1; ) {
            total += read;
            if (total > max) throw tooLarge();
            out.write(buffer, 0, read);
        }
        return out.toByteArray();
    }

    private static ApiProblemException tooLarge() {
        return new ApiProblemException(HttpStatus.CONTENT_TOO_LARGE, "payload-too-large", "Notification too large",
                "A notification is at most " + MAX_BODY_BYTES + " bytes");
    }
}
