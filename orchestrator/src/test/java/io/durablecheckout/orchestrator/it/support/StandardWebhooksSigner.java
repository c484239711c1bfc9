package io.durablecheckout.orchestrator.it.support;

import com.standardwebhooks.Webhook;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Signs a provider notification as a sender would, with the official Standard Webhooks library itself (not the
 * product's code around it): {@code webhook-id} is the body's {@code eventId}.
 */
public final class StandardWebhooksSigner {

    private static final Pattern EVENT_ID = Pattern.compile("\"eventId\":\"([^\"]*)\"");

    private StandardWebhooksSigner() {
    }

    public static String signature(String secret, String id, long epochSeconds, String body) {
        try {
            Webhook webhook = secret.startsWith("whsec_") ? new Webhook(secret)
                    : new Webhook(secret.getBytes(StandardCharsets.UTF_8));
            return webhook.sign(id, epochSeconds, body);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    public static String idOf(String body) {
        Matcher m = EVENT_ID.matcher(body);
        return m.find() ? m.group(1) : "no-event-id";
    }

    public static Map<String, String> headers(String id, long epochSeconds, String signature) {
        return Map.of("webhook-id", id, "webhook-timestamp", Long.toString(epochSeconds), "webhook-signature", signature);
    }

    /** The three headers for {@code body}, signed now-ish ({@code epochSeconds}) with {@code secret}. */
    public static Map<String, String> signed(String secret, long epochSeconds, String body) {
        String id = idOf(body);
        return headers(id, epochSeconds, signature(secret, id, epochSeconds, body));
    }
}
