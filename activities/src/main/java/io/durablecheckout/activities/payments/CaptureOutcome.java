package io.durablecheckout.activities.payments;

import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Money;

/**
 * What {@link PaymentsResource#capture} did.
 *
 * @param captured what the provider took (null unless CAPTURED)
 * @param replayed true when a terminal outcome was already recorded: the provider was not called this time
 */
public record CaptureOutcome(Status status, String providerReference, Money captured, String detail,
                             boolean replayed, FencingToken highestAccepted) {

    public enum Status {
        CAPTURED,
        /** Refused for good (lapsed or voided hold, declined capture, amount above the authorized). */
        DECLINED,
        /** Timeout or broken connection: ask again under the same capture operation id. */
        UNKNOWN,
        /** The provider certainly did not process the request: retryable. */
        FAILED,
        STALE
    }

    static CaptureOutcome of(Status status, String reference, Money captured, String detail, boolean replayed) {
        return new CaptureOutcome(status, reference, captured, detail, replayed, null);
    }

    static CaptureOutcome stale(FencingToken highestAccepted) {
        return new CaptureOutcome(Status.STALE, null, null, null, false, highestAccepted);
    }
}
