package io.durablecheckout.orchestrator.web;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How a provider notification proves where it comes from; the wiring ({@code config}) provides the scheme, so this
 * package does not know the payments service's code.
 */
public interface NotificationSignatures {

    /**
     * @param notificationId the id the signature covers (the replay guard's key)
     * @param epochSeconds   the signed timestamp
     * @param stale          validly signed, but outside the scheme's own time window
     * @param notification   the notification in the product's form (JSON: eventId, operationId, status, …), or null
     *                       for a verified event the product does not read (answered 202 "ignored")
     */
    record Signed(String notificationId, long epochSeconds, boolean stale, byte[] notification) {
    }

    /** The endpoint's scheme: {@value #STANDARD_WEBHOOKS} (the generic provider) or {@value #STRIPE}. */
    String scheme();

    String STANDARD_WEBHOOKS = "standard-webhooks";
    String STRIPE = "stripe";

    /** Empty when the headers are missing or malformed or no signature verifies over them and the exact body. */
    Optional<Signed> verify(Map<String, List<String>> headers, byte[] body);

    /** The headers the scheme reads, for the problem detail of a refusal. */
    List<String> headers();

    /**
     * The secrets senders sign with, in the form integrators configure (Standard Webhooks: {@code whsec_} + base64 of
     * the key bytes), the one to sign with first; none for a scheme whose secret the provider issues (Stripe).
     */
    default List<String> secretsForIntegrators() {
        return List.of();
    }
}
