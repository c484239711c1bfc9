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

    /** A checkout id registered for a data key: new, or registered by an earlier request. */
    interface KeyRegistration {
        String checkoutId();

        /** No earlier request registered this checkout id (so none created it; see {@link #register}). */
        boolean isNew();
    }

    /**
     * Registers a checkout id for a data key in the caller's transaction, with one statement, without creating the key
     * yet: a request refused after this rolls the registration back and leaves nothing behind. Every checkout sealed
     * under a key was registered first, so a new registration means no earlier request created this checkout (those
     * made before keys existed excepted: they have none).
     */
    KeyRegistration register(String checkoutId);

    /** Seals a registered checkout's fields (creating its key) and keys its request fingerprint. */
    SealedCheckout sealCheckout(KeyRegistration registration, String paymentToken, String customerEmail,
                                String canonical);

    /** Registers and seals a new checkout's fields (creating its key) and keys its request fingerprint. */
    default SealedCheckout sealCheckout(String checkoutId, String paymentToken, String customerEmail, String canonical) {
        return sealCheckout(register(checkoutId), paymentToken, customerEmail, canonical);
    }

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
