package io.durablecheckout.activities.payments.stripe;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.stripe.exception.SignatureVerificationException;
import com.stripe.model.Event;
import com.stripe.net.Webhook;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Stripe's webhooks: the {@code Stripe-Signature} header verified with the SDK ({@link Webhook#constructEvent}),
 * then the event read as the product's provider notification (the same fields the generic provider sends), so the
 * receiver's other protections (replay guard by event id, amount/currency/tenant match, the checkout's decision)
 * apply unchanged. {@code payment_intent.amount_capturable_updated} is AUTHORIZED, {@code .payment_failed} and
 * {@code .canceled} DECLINED; other events ({@code .requires_action} too: the authorization's answer carried it) are
 * verified and ignored. {@code .succeeded} among them: the product's intents are manual-capture, so
 * it is the evidence of a capture, not of an authorization (the capture's outcome comes from the capture call, asked
 * again under its own key); read as AUTHORIZED it would report a captured payment as merely authorized.
 */
public final class StripeWebhooks {

    public static final String SIGNATURE_HEADER = "Stripe-Signature";

    private StripeWebhooks() {
    }

    /**
     * @param notification the event as a provider notification (JSON), or null for an event type the product does not read
     * @param stale        correctly signed, but outside the tolerance
     */
    public record Verified(String eventId, long epochSeconds, boolean stale, byte[] notification) {
    }

    /** Empty when the header is missing or malformed or no {@code v1} signature of the secret matches. */
    public static Optional<Verified> verify(String secret, String payload, String header, long toleranceSeconds) {
        if (secret == null || secret.isBlank() || payload == null || header == null || header.length() > 2000) {
            return Optional.empty();
        }
        Long timestamp = timestamp(header);
        if (timestamp == null) return Optional.empty();
        Event event;
        boolean stale = false;
        try {
            event = Webhook.constructEvent(payload, header, secret, toleranceSeconds);
        } catch (SignatureVerificationException e) {
            try {
                // tolerance 0: the signature alone, to tell a stale delivery from a forged one
                Webhook.Signature.verifyHeader(payload, header, secret, 0);
            } catch (SignatureVerificationException forged) {
                return Optional.empty();
            }
            stale = true;
            event = null;
        } catch (RuntimeException e) {
            return Optional.empty(); // signed, but not an event (a JSON error): nothing Stripe sends
        }
        JsonObject root;
        try {
            root = JsonParser.parseString(payload).getAsJsonObject();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        String id = event != null ? event.getId() : string(root, "id");
        if (id == null) return Optional.empty();
        return Optional.of(new Verified(id, timestamp, stale, notification(id, root)));
    }

    private static byte[] notification(String eventId, JsonObject event) {
        String status = switch (String.valueOf(string(event, "type"))) {
            case "payment_intent.amount_capturable_updated" -> "AUTHORIZED";
            // an attempt failed (a 3-D Secure failure included): Stripe may take another payment method on the same
            // intent, but the product never offers one, so the authorization is over
            case "payment_intent.payment_failed" -> "DECLINED";
            // cancelled: our void, an expired hold, a cancellation in Stripe's dashboard, an abandoned 3-D Secure;
            // nothing can be captured any more
            case "payment_intent.canceled" -> "DECLINED";
            default -> null;
        };
        JsonObject intent = event.has("data") && event.getAsJsonObject("data").has("object")
                ? event.getAsJsonObject("data").getAsJsonObject("object") : null;
        if (status == null || intent == null) return null;
        JsonObject metadata = intent.has("metadata") && intent.get("metadata").isJsonObject()
                ? intent.getAsJsonObject("metadata") : new JsonObject();
        Map<String, Object> n = new LinkedHashMap<>();
        n.put("eventId", eventId);
        n.put("operationId", string(metadata, StripePaymentProvider.METADATA_OPERATION));
        n.put("status", status);
        n.put("reference", string(intent, "id"));
        n.put("tenantId", string(metadata, StripePaymentProvider.METADATA_TENANT));
        n.put("amountMinor", intent.has("amount") && intent.get("amount").isJsonPrimitive()
                ? intent.get("amount").getAsJsonPrimitive() : null);
        String currency = string(intent, "currency");
        n.put("currency", currency == null ? null : currency.toUpperCase(Locale.ROOT));
        JsonObject out = new JsonObject();
        n.forEach((k, v) -> {
            if (v instanceof JsonElement e) out.add(k, e);
            else if (v != null) out.addProperty(k, v.toString());
        });
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String string(JsonObject o, String field) {
        JsonElement e = o.get(field);
        return e != null && e.isJsonPrimitive() ? e.getAsString() : null;
    }

    private static Long timestamp(String header) {
        for (String part : header.split(",")) {
            String p = part.trim();
            if (p.startsWith("t=") && p.length() > 2 && p.length() <= 14 && p.substring(2).chars().allMatch(Character::isDigit)) {
                return Long.parseLong(p.substring(2));
            }
        }
        return null;
    }
}
