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
     */
    record Signed(String notificationId, long epochSeconds, boolean stale) {
    }

    /** Empty when the headers are missing or malformed or no signature verifies over them and the exact body. */
    Optional<Signed> verify(Map<String, List<String>> headers, byte[] body);

    /** The headers the scheme reads, for the problem detail of a refusal. */
    List<String> headers();
}
