package io.durablecheckout.activities.simulator;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Signs and verifies simulator webhooks: header {@value #HEADER} carries the lower-case hex HMAC-SHA256 of the raw
 * request body under the shared secret. Verify against the exact bytes received, before parsing them.
 */
public final class WebhookSignature {

    public static final String HEADER = "X-Simulator-Signature";
    public static final String DEFAULT_SECRET = "simulator-webhook-secret";
    private static final String ALGORITHM = "HmacSHA256";

    private WebhookSignature() {
    }

    public static String sign(String secret, byte[] body) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 unavailable", e);
        }
    }

    public static String sign(String secret, String body) {
        return sign(secret, body.getBytes(StandardCharsets.UTF_8));
    }

    /** Constant-time comparison, so the check leaks nothing about how much of a forged signature was right. */
    public static boolean verify(String secret, byte[] body, String signature) {
        if (secret == null || body == null || signature == null) return false;
        byte[] expected = sign(secret, body).getBytes(StandardCharsets.US_ASCII);
        byte[] presented = signature.trim().toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, presented);
    }

    public static boolean verify(String secret, String body, String signature) {
        return body != null && verify(secret, body.getBytes(StandardCharsets.UTF_8), signature);
    }
}
