package io.durablecheckout.activities.payments;

import com.standardwebhooks.Webhook;
import com.standardwebhooks.exceptions.WebhookSigningException;
import com.standardwebhooks.exceptions.WebhookVerificationException;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Provider notifications signed as <a href="https://www.standardwebhooks.com">Standard Webhooks</a>, through the
 * official library ({@code com.standardwebhooks:standardwebhooks}):
 * <pre>
 * webhook-id: &lt;the notification's id, the same in every redelivery&gt;
 * webhook-timestamp: &lt;Unix epoch seconds at sending time&gt;
 * webhook-signature: v1,&lt;base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)&gt; [v1,&lt;…&gt; …]
 * </pre>
 * Several space-separated signatures are allowed, one per secret, so a sender can sign with the new and the old secret
 * while they rotate; one that verifies is enough. A secret is {@code whsec_<base64 key>} (the standard's form) or any
 * other string of at least {@link WebhookSecret#MIN_LENGTH} characters, whose UTF-8 bytes are the key. Used by the
 * receiving side (the orchestrator's wiring) and by the provider simulator, which signs with the same code.
 */
public final class WebhookSignatures {

    public static final String ID_HEADER = "webhook-id";
    public static final String TIMESTAMP_HEADER = "webhook-timestamp";
    public static final String SIGNATURE_HEADER = "webhook-signature";
    public static final String SIGNING_KEY_PREFIX = "whsec_";

    private WebhookSignatures() {
    }

    /** The library's signer for one secret. */
    public static Webhook webhook(String secret) {
        if (secret == null || secret.isEmpty()) throw new IllegalArgumentException("no webhook secret");
        return secret.startsWith(SIGNING_KEY_PREFIX) ? new Webhook(secret)
                : new Webhook(secret.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The secret as the standard shows it to integrators: {@code whsec_} + base64 of the key bytes this product signs
     * with (a {@code whsec_} secret as it is; any other: its UTF-8 bytes), so the official libraries' default
     * constructor, {@code new Webhook(secret)}, verifies and signs as we do.
     */
    public static String integratorForm(String secret) {
        if (secret.startsWith(SIGNING_KEY_PREFIX)) return secret;
        return SIGNING_KEY_PREFIX + java.util.Base64.getEncoder().encodeToString(secret.getBytes(StandardCharsets.UTF_8));
    }

    /** The value of {@value #SIGNATURE_HEADER}: one {@code v1,…} signature per secret, space-separated. */
    public static String sign(List<String> secrets, String id, long epochSeconds, String body) {
        List<String> signatures = new ArrayList<>();
        for (String secret : secrets) {
            try {
                signatures.add(webhook(secret).sign(id, epochSeconds, body));
            } catch (WebhookSigningException e) {
                throw new IllegalStateException("HMAC-SHA256 unavailable", e);
            }
        }
        return String.join(" ", signatures);
    }

    public static String sign(String secret, String id, long epochSeconds, String body) {
        return sign(List.of(secret), id, epochSeconds, body);
    }

    /**
     * @param stale signed with one of the secrets, but outside the library's own window (five minutes either way)
     */
    public record Verified(String id, long epochSeconds, boolean stale) {
    }

    /**
     * Verifies with the library against each secret. Empty: headers missing or malformed, a body that is not UTF-8
     * (the library signs text: two byte strings must not read as one), or no signature of any secret matches.
     */
    public static Optional<Verified> verify(List<String> secrets, Map<String, List<String>> headers, byte[] body) {
        String id = first(headers, ID_HEADER);
        String timestamp = first(headers, TIMESTAMP_HEADER);
        String signatures = first(headers, SIGNATURE_HEADER);
        Long epochSeconds = parseTimestamp(timestamp);
        String payload = utf8(body);
        if (id == null || id.isEmpty() || id.length() > 255 || epochSeconds == null || signatures == null
                || signatures.length() > 1000 || payload == null || payload.isEmpty()) {
            return Optional.empty();
        }
        Map<String, List<String>> signed = Map.of(ID_HEADER, List.of(id), TIMESTAMP_HEADER, List.of(timestamp),
                SIGNATURE_HEADER, List.of(signatures));
        for (String secret : secrets) {
            Webhook webhook = webhook(secret);
            try {
                webhook.verify(payload, signed);
                return Optional.of(new Verified(id, epochSeconds, false));
            } catch (WebhookVerificationException | RuntimeException e) {
                // not this secret, or outside the library's window (told apart below); a runtime exception is the
                // library's answer to a malformed signature list (an entry without its "v1,")
            }
            if (matchesIgnoringTime(webhook, id, epochSeconds, payload, signatures)) {
                return Optional.of(new Verified(id, epochSeconds, true));
            }
        }
        return Optional.empty();
    }

    private static boolean matchesIgnoringTime(Webhook webhook, String id, long epochSeconds, String payload,
                                               String signatures) {
        try {
            byte[] expected = webhook.sign(id, epochSeconds, payload).getBytes(StandardCharsets.US_ASCII);
            for (String presented : signatures.trim().split(" +")) {
                if (MessageDigest.isEqual(expected, presented.getBytes(StandardCharsets.US_ASCII))) return true;
            }
            return false;
        } catch (WebhookSigningException e) {
            return false;
        }
    }

    private static String first(Map<String, List<String>> headers, String name) {
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            if (e.getKey() != null && e.getKey().equalsIgnoreCase(name) && e.getValue() != null
                    && !e.getValue().isEmpty()) {
                return e.getValue().get(0);
            }
        }
        return null;
    }

    private static String utf8(byte[] body) {
        if (body == null) return null;
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** The timestamp header as epoch seconds, or null when it is absent or not a plain number. */
    public static Long parseTimestamp(String header) {
        if (header == null || header.isEmpty() || header.length() > 12) return null;
        for (int i = 0; i < header.length(); i++) {
            if (header.charAt(i) < '0' || header.charAt(i) > '9') return null;
        }
        return Long.parseLong(header);
    }
}
