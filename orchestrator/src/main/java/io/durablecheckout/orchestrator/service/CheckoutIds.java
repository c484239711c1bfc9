package io.durablecheckout.orchestrator.service;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.TenantId;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.UUID;

/**
 * A checkout's id from its tenant and {@code Idempotency-Key}: {@code co_} and the first 128 bits of
 * HMAC-SHA256(key, tenant + '\n' + Idempotency-Key), written as a UUID of version 8. Deterministic, so a retry
 * addresses the same aggregate (docs/decisions.md 5), but nobody without the key can compute it (docs/decisions.md 95):
 * the key is kept outside the event store, in the data key store next to the checkouts' data keys.
 * <p>
 * Checkouts accepted before this (version 3, name-based UUIDs) keep their ids: {@link #legacyIdFor} is what a
 * submission looks up first.
 */
public final class CheckoutIds {

    /** The key's name in the data key store (not a checkout id: those start with {@code co_}). */
    public static final String KEY_NAME = "checkout-ids/hmac-sha256";
    public static final int KEY_BYTES = 32;

    private final SecretKeySpec key;
    private final String missing;

    public CheckoutIds(byte[] key) {
        if (key == null || key.length < KEY_BYTES) {
            throw new IllegalArgumentException("the checkout id key needs at least " + KEY_BYTES + " bytes");
        }
        this.key = new SecretKeySpec(key.clone(), "HmacSHA256");
        this.missing = null;
    }

    private CheckoutIds(String missing) {
        this.key = null;
        this.missing = missing;
    }

    /** For a process without a key store (the simulator on its own): it never submits; a submission would fail. */
    public static CheckoutIds unavailable(String why) {
        return new CheckoutIds(why);
    }

    public CheckoutId idFor(TenantId tenant, String idempotencyKey) {
        if (key == null) throw new IllegalStateException(missing);
        byte[] hash;
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            hash = mac.doFinal(name(tenant, idempotencyKey));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        hash[6] = (byte) ((hash[6] & 0x0f) | 0x80); // version 8: custom (RFC 9562)
        hash[8] = (byte) ((hash[8] & 0x3f) | 0x80); // the RFC's variant
        ByteBuffer bits = ByteBuffer.wrap(hash, 0, 16);
        return new CheckoutId("co_" + new UUID(bits.getLong(), bits.getLong()));
    }

    /** The id the same request got before decision 95: a name-based UUID anyone could compute. */
    public static CheckoutId legacyIdFor(TenantId tenant, String idempotencyKey) {
        return new CheckoutId("co_" + UUID.nameUUIDFromBytes(name(tenant, idempotencyKey)));
    }

    private static byte[] name(TenantId tenant, String idempotencyKey) {
        return (tenant.value() + "\n" + idempotencyKey).getBytes(StandardCharsets.UTF_8);
    }
}
