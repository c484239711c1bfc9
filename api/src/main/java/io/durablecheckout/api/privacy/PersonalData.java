package io.durablecheckout.api.privacy;

import java.util.Optional;

/**
 * A checkout's personal data (the customer's e-mail and payment token) sealed under a key of its own: what the
 * orchestrator seals at submission and reveals for display, and what an erasure destroys. The activities' vault
 * implements it; the orchestrator holds only this port, given to it by the wiring.
 * <p>
 * A sealed value is {@value #PREFIX} followed by the ciphertext; once the checkout's key is erased it is shown as
 * {@value #ERASED}.
 */
public interface PersonalData {

    String PREFIX = "enc:v1:";
    String ERASED = "[erased]";
    String EMAIL = "customerEmail";
    String PAYMENT_TOKEN = "paymentToken";

    /** A new checkout's personal fields, sealed, and its request fingerprint, keyed (see {@link #fingerprint}). */
    record SealedCheckout(String paymentToken, String customerEmail, String fingerprint) {
    }

    /** Seals a new checkout's fields (creating its key) and keys its request fingerprint. */
    SealedCheckout sealCheckout(String checkoutId, String paymentToken, String customerEmail, String canonical);

    /** The keyed fingerprint of a request for an existing checkout; empty once its personal data was erased. */
    Optional<String> fingerprint(String checkoutId, String canonical);

    /** For display: the plaintext, or {@value #ERASED}. */
    String reveal(String checkoutId, String field, String value);

    /** Erases the checkout's personal data for good (destroys its key); true when this call erased it. */
    boolean erase(String checkoutId, String erasedBy, String reason);

    static boolean isSealed(String value) {
        return value != null && value.startsWith(PREFIX);
    }
}
