package io.durablecheckout.activities.payments;

import io.durablecheckout.api.values.FencingToken;

/**
 * What {@link PaymentsResource#authorize} did.
 *
 * @param replayed   true when an outcome was already recorded (a terminal one, or the customer's action): the provider
 *                   was not called this time
 * @param nextAction ACTION_REQUIRED only: what the client must show (JSON text, as the provider gave it)
 */
public record AuthorizationOutcome(Status status, String providerReference, String detail, boolean replayed,
                                   FencingToken highestAccepted, String nextAction) {

    public enum Status {
        AUTHORIZED,
        DECLINED,
        /** Timeout, broken connection or PENDING: ask again (or look up) under the same operation id. */
        UNKNOWN,
        /** The provider certainly did not process the request: retryable. */
        FAILED,
        STALE,
        /**
         * The provider needs the customer (3-D Secure): not final, but not asked again either; the provider's
         * notification, or a lookup, settles it.
         */
        ACTION_REQUIRED
    }

    static AuthorizationOutcome of(Status status, String reference, String detail, boolean replayed) {
        return new AuthorizationOutcome(status, reference, detail, replayed, null, null);
    }

    static AuthorizationOutcome actionRequired(String reference, String nextAction, boolean replayed) {
        return new AuthorizationOutcome(Status.ACTION_REQUIRED, reference, "the provider needs the customer", replayed,
                null, nextAction);
    }

    static AuthorizationOutcome stale(FencingToken highestAccepted) {
        return new AuthorizationOutcome(Status.STALE, null, null, false, highestAccepted, null);
    }
}
