package io.durablecheckout.activities.privacy;

import io.durablecheckout.api.privacy.PersonalData;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import javax.sql.DataSource;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Crypto-shredding of a checkout's personal data (the customer's e-mail and payment token). Each checkout has its
 * own random AES-256 key, kept outside PostgreSQL in a {@link DataKeyStore}; {@code personal_data_keys} only registers
 * the checkout and, once erased, remembers when, by whom and why. The fields travel through commands and immutable
 * events, and rest in every table of the product, as {@value #PREFIX}{@code base64(iv | ciphertext | tag)} (AES-GCM,
 * the checkout id and field name as associated data, so a value cannot be moved to another checkout or field).
 * Erasure destroys the key: every copy in every event, projection, record, backup and export is then unreadable for
 * good, and is shown as {@value #ERASED}, while everything else in the history (ids, amounts, decisions) stays intact
 * and replayable. A value without the prefix is legacy plaintext and is returned as it is. A key still in
 * {@code personal_data_keys.data_key} (written before the store existed, see {@link LegacyDataKeys}) is used as it is.
 */
public class PersonalDataVault implements PersonalData {

    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final JdbcTemplate jdbc;
    private final DataKeyStore keys;
    /** Bound per transaction: the keys it already read or registered (see {@link #keysOfThisTransaction}). */
    private final Object transactionKeys = new Object();

    public PersonalDataVault(DataSource dataSource, DataKeyStore keys) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.keys = keys;
    }

    /** Thrown when a checkout's personal data was erased and a value must be sealed or opened for work. */
    public static class ErasedException extends IllegalStateException {
        public ErasedException(String checkoutId) {
            super("personal data of checkout " + checkoutId + " was erased");
        }
    }

    /** Seals a registered checkout's fields (creating the key: no further look-up). */
    @Override
    public SealedCheckout sealCheckout(KeyRegistration registration, String paymentToken, String customerEmail,
                                       String canonical) {
        String checkoutId = registration.checkoutId();
        byte[] key = keyOf((Registered) registration);
        return new SealedCheckout(seal(key, checkoutId, PAYMENT_TOKEN, paymentToken),
                seal(key, checkoutId, EMAIL, customerEmail), fingerprint(key, canonical));
    }

    /**
     * {@code hmac:v1:} + HMAC-SHA256 of a request's canonical form under a key derived from the checkout's key: a
     * retried request is recognised without storing a plain hash of the e-mail (which anyone could test guesses
     * against). Empty once erased.
     */
    @Override
    public Optional<String> fingerprint(String checkoutId, String canonical) {
        return key(checkoutId).map(key -> fingerprint(key, canonical));
    }

    private static String fingerprint(byte[] key, String canonical) {
        try {
            javax.crypto.Mac derive = javax.crypto.Mac.getInstance("HmacSHA256");
            derive.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] macKey = derive.doFinal("request-fingerprint".getBytes(StandardCharsets.UTF_8));
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(macKey, "HmacSHA256"));
            return "hmac:v1:" + java.util.HexFormat.of().formatHex(mac.doFinal(canonical.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 unavailable", e);
        }
    }

    /** Encrypts {@code plaintext} under the checkout's key, creating the key on first use. */
    public String seal(String checkoutId, String field, String plaintext) {
        if (plaintext == null) return null;
        return seal(keyOrCreate(checkoutId), checkoutId, field, plaintext);
    }

    /**
     * A value to keep in a record of the product: a sealed one as it is, a legacy plain one sealed now (creating the
     * checkout's key); empty when the checkout's personal data was erased and a plain value arrived.
     */
    public Optional<String> sealedCopy(String checkoutId, String field, String value) {
        if (value == null || isSealed(value)) return Optional.ofNullable(value);
        try {
            return Optional.of(seal(checkoutId, field, value));
        } catch (ErasedException e) {
            return Optional.empty();
        }
    }

    private static String seal(byte[] key, String checkoutId, String field, String plaintext) {
        if (plaintext == null) return null;
        try {
            byte[] iv = new byte[IV_BYTES];
            RANDOM.nextBytes(iv);
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(TAG_BITS, iv));
            cipher.updateAAD(aad(checkoutId, field));
            byte[] sealed = cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8));
            return PREFIX + Base64.getEncoder().encodeToString(ByteBuffer.allocate(iv.length + sealed.length)
                    .put(iv).put(sealed).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM unavailable", e);
        }
    }

    public static boolean isSealed(String value) {
        return PersonalData.isSealed(value);
    }

    /** The plaintext; empty when the key was erased. Legacy plaintext values are returned unchanged. */
    public Optional<String> open(String checkoutId, String field, String value) {
        if (!isSealed(value)) return Optional.ofNullable(value);
        Optional<byte[]> key = key(checkoutId);
        if (key.isEmpty()) return Optional.empty();
        try {
            byte[] all = Base64.getDecoder().decode(value.substring(PREFIX.length()));
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key.get(), "AES"),
                    new GCMParameterSpec(TAG_BITS, all, 0, IV_BYTES));
            cipher.updateAAD(aad(checkoutId, field));
            return Optional.of(new String(cipher.doFinal(all, IV_BYTES, all.length - IV_BYTES), StandardCharsets.UTF_8));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalStateException("sealed " + field + " of checkout " + checkoutId + " does not open", e);
        }
    }

    /** For display: the plaintext, or {@value #ERASED}. */
    @Override
    public String reveal(String checkoutId, String field, String value) {
        return open(checkoutId, field, value).orElse(ERASED);
    }

    /**
     * Records the erasure (the tombstone row: when, by whom, why; from then on nothing opens or seals for the
     * checkout), destroys the checkout's key in the store once that commits (at once without a transaction), and
     * overwrites the copies in the receipts service's records. True when this call erased it; calling again destroys
     * a key a crash may have left and answers false.
     */
    @Override
    public boolean erase(String checkoutId, String erasedBy, String reason) {
        java.util.Map<String, byte[]> known = keysOfThisTransaction();
        if (known != null) known.remove(checkoutId);
        int erased = jdbc.update("UPDATE personal_data_keys SET data_key = NULL, erased_at = now(), erased_by = ?, "
                + "reason = ? WHERE checkout_id = ? AND erased_at IS NULL", erasedBy, reason, checkoutId);
        if (erased == 0) {
            // A checkout with only legacy plaintext (or none yet): record the erasure so nothing new is sealed.
            erased = jdbc.update("INSERT INTO personal_data_keys (checkout_id, data_key, erased_at, erased_by, reason) "
                    + "VALUES (?, NULL, now(), ?, ?) ON CONFLICT (checkout_id) DO NOTHING", checkoutId, erasedBy, reason);
        }
        // The key goes only once the tombstone is committed: a rollback must not leave a checkout unreadable but not
        // recorded as erased. A crash in between leaves a key nothing opens (the tombstone wins), destroyed at the next
        // start (LegacyDataKeys) or by erasing again.
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    keys.destroy(checkoutId);
                }
            });
        } else {
            keys.destroy(checkoutId);
        }
        // The records keep the address sealed; overwritten too, so they show the erasure.
        jdbc.update("UPDATE receipt_operations SET recipient = ? WHERE checkout_id = ?", ERASED, checkoutId);
        String ofCheckout = checkoutId.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "/%";
        jdbc.update("UPDATE outbound_messages SET recipient = ? WHERE operation_id LIKE ? ESCAPE '!'", ERASED, ofCheckout);
        // The demo mail sink's copy of what was "sent" (a real mail adapter keeps its own records).
        jdbc.update("UPDATE mail_sink_messages SET recipient = ? WHERE operation_id LIKE ? ESCAPE '!'", ERASED, ofCheckout);
        return erased == 1;
    }

    public boolean erased(String checkoutId) {
        return Boolean.TRUE.equals(jdbc.queryForObject("SELECT EXISTS (SELECT 1 FROM personal_data_keys "
                + "WHERE checkout_id = ? AND erased_at IS NOT NULL)", Boolean.class, checkoutId));
    }

    /** The checkout's registration: whether it was erased, and a legacy key still in the table (else null). */
    private record Registration(boolean erased, byte[] legacyKey) {
    }

    private Optional<Registration> registration(String checkoutId) {
        List<Registration> rows = jdbc.query("SELECT erased_at IS NOT NULL, data_key FROM personal_data_keys "
                + "WHERE checkout_id = ?", (rs, i) -> new Registration(rs.getBoolean(1), rs.getBytes(2)), checkoutId);
        return rows.stream().findFirst();
    }

    /** The key; empty when the checkout was erased or never had one. The tombstone wins over a key file left behind. */
    private Optional<byte[]> key(String checkoutId) {
        java.util.Map<String, byte[]> known = keysOfThisTransaction();
        if (known != null && known.containsKey(checkoutId)) return Optional.of(known.get(checkoutId));
        Optional<Registration> registration = registration(checkoutId);
        if (registration.isEmpty() || registration.get().erased()) return Optional.empty();
        Optional<byte[]> key = registration.get().legacyKey() != null ? Optional.of(registration.get().legacyKey())
                : keys.find(checkoutId);
        if (known != null) key.ifPresent(k -> known.put(checkoutId, k));
        return key;
    }

    /**
     * The keys this transaction already read or registered, by checkout; null outside a transaction Spring follows.
     * A receipt's address is opened and then sealed again by the demo mail sink in one transaction: one look-up of
     * the registration, not two. Gone when the transaction ends; an erasure in it removes the checkout's key.
     */
    private java.util.Map<String, byte[]> keysOfThisTransaction() {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) return null;
        @SuppressWarnings("unchecked")
        java.util.Map<String, byte[]> known =
                (java.util.Map<String, byte[]>) TransactionSynchronizationManager.getResource(transactionKeys);
        if (known == null) {
            known = new java.util.HashMap<>();
            TransactionSynchronizationManager.bindResource(transactionKeys, known);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    TransactionSynchronizationManager.unbindResourceIfPossible(transactionKeys);
                }
            });
        }
        return known;
    }

    /** Registers and reads in one statement: the new row (the INSERT's RETURNING), or the one already there. */
    @Override
    public Registered register(String checkoutId) {
        // A row committed by a concurrent registration after this statement's snapshot is seen by neither branch: asked
        // again.
        List<Registered> rows = jdbc.query("WITH fresh AS (INSERT INTO personal_data_keys (checkout_id) VALUES (?) "
                + "ON CONFLICT (checkout_id) DO NOTHING RETURNING checkout_id) "
                + "SELECT true, false, NULL::bytea FROM fresh UNION ALL SELECT false, erased_at IS NOT NULL, data_key "
                + "FROM personal_data_keys WHERE checkout_id = ? AND NOT EXISTS (SELECT 1 FROM fresh)",
                (rs, i) -> new Registered(checkoutId, rs.getBoolean(1), rs.getBoolean(2), rs.getBytes(3)),
                checkoutId, checkoutId);
        if (!rows.isEmpty()) return rows.get(0);
        Registration earlier = registration(checkoutId).orElseThrow();
        return new Registered(checkoutId, false, earlier.erased(), earlier.legacyKey());
    }

    /** A registration as {@link #register} read it; the key itself is created only when a checkout is sealed. */
    public record Registered(String checkoutId, boolean isNew, boolean erased, byte[] legacyKey)
            implements KeyRegistration {
    }

    private byte[] keyOrCreate(String checkoutId) {
        java.util.Map<String, byte[]> known = keysOfThisTransaction();
        if (known != null && known.containsKey(checkoutId)) return known.get(checkoutId);
        byte[] key = keyOf(register(checkoutId));
        if (known != null) known.put(checkoutId, key);
        return key;
    }

    private byte[] keyOf(Registered registration) {
        if (registration.erased()) throw new ErasedException(registration.checkoutId());
        if (registration.legacyKey() != null) return registration.legacyKey();
        byte[] fresh = new byte[32];
        RANDOM.nextBytes(fresh);
        return keys.create(registration.checkoutId(), fresh);
    }

    private static byte[] aad(String checkoutId, String field) {
        return (checkoutId + "\n" + field).getBytes(StandardCharsets.UTF_8);
    }
}
