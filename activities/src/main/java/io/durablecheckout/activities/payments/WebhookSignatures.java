package io.durablecheckout.activities.payments;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Signature of a payment provider notification (webhook). The provider sends two headers:
 * <pre>
 * Checkout-Webhook-Timestamp: &lt;Unix epoch seconds at sending time&gt;
 * Checkout-Webhook-Signature: v1=&lt;lower-case hex HMAC-SHA256(secret, timestamp + "." + raw body)&gt;
 * </pre>
 * The timestamp is inside the signed bytes, so an old notification cannot be re-sent with a fresh timestamp; the
 * receiver rejects a timestamp outside its tolerance window and a signature it has already accepted (replay).
 * Verify against the exact bytes received, before parsing them. Used by the receiving controller and by the
 * provider simulator, which signs with the same code.
 */
public final class WebhookSignatures {

    public static final String TIMESTAMP_HEADER = "Checkout-Webhook-Timestamp";
    public static final String SIGNATURE_HEADER = "Checkout-Webhook-Signature";
    public static final String VERSION_PREFIX = "v1=";
    private static final String ALGORITHM = "HmacSHA256";

    private WebhookSignatures() {
    }

    /** The value of {@value #SIGNATURE_HEADER} for this timestamp and body. */
    public static String sign(String secret, long epochSeconds, byte[] body) {
        if (secret == null || secret.isEmpty()) throw new IllegalArgumentException("no webhook secret");
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM));
            mac.update(Long.toString(epochSeconds).getBytes(StandardCharsets.US_ASCII));
            mac.update((byte) '.');
            return VERSION_PREFIX + HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 unavailable", e);
        }
    }

    public static String sign(String secret, long epochSeconds, String body) {
        return sign(secret, epochSeconds, body.getBytes(StandardCharsets.UTF_8));
    }

    /** Constant-time comparison, so the check leaks nothing about how much of a forged signature was right. */
    public static boolean verify(String secret, long epochSeconds, byte[] body, String signature) {
        if (secret == null || secret.isEmpty() || body == null || signature == null) return false;
        byte[] expected = sign(secret, epochSeconds, body).getBytes(StandardCharsets.US_ASCII);
        byte[] presented = signature.trim().toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, presented);
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
