package io.durablecheckout.activities.payments;

import io.durablecheckout.api.values.FencingToken;

/** What {@link PaymentsResource#voidAuthorization} or {@link PaymentsResource#refund} did. */
public record CompensationOutcome(Status status, String providerReference, String detail, boolean replayed,
                                  FencingToken highestAccepted) {

    public enum Status {
        /** Voided / refunded at the provider. */
        DONE,
        /** Not done this time; retrying under the same key is safe. */
        FAILED,
        STALE
    }

    static CompensationOutcome of(Status status, String reference, String detail, boolean replayed) {
        return new CompensationOutcome(status, reference, detail, replayed, null);
    }

    static CompensationOutcome stale(FencingToken highestAccepted) {
        return new CompensationOutcome(Status.STALE, null, null, false, highestAccepted);
    }
}
