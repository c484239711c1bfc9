package io.durablecheckout.activities.payments;

import io.durablecheckout.api.values.FencingToken;

/**
 * What {@link PaymentsResource#authorize} did.
 *
 * @param replayed true when a terminal outcome was already recorded: the provider was not called this time
 */
public record AuthorizationOutcome(Status status, String providerReference, String detail, boolean replayed,
                                   FencingToken highestAccepted) {

    public enum Status {
        AUTHORIZED,
        DECLINED,
        /** Timeout, broken connection or PENDING: ask again (or look up) under the same operation id. */
        UNKNOWN,
        /** The provider certainly did not process the request: retryable. */
        FAILED,
        STALE
    }

    static AuthorizationOutcome of(Status status, String reference, String detail, boolean replayed) {
        return new AuthorizationOutcome(status, reference, detail, replayed, null);
    }

    static AuthorizationOutcome stale(FencingToken highestAccepted) {
        return new AuthorizationOutcome(Status.STALE, null, null, false, highestAccepted);
    }
}
