package io.durablecheckout.activities.payments;

import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.values.FencingToken;

/**
 * What {@link PaymentsResource#lookup} learned; {@code outcome} is null when the lookup owner was stale.
 *
 * @param replayed true when this round's recorded answer was returned without asking the provider again
 */
public record LookupResult(boolean stale, PaymentLookupOutcome outcome, String providerReference, String detail,
                           FencingToken highestAccepted, boolean replayed) {

    static LookupResult answered(PaymentLookupOutcome outcome, String reference, String detail) {
        return new LookupResult(false, outcome, reference, detail, null, false);
    }

    /** The answer this lookup round already got, re-published without asking again (a redelivered intent). */
    static LookupResult replayed(PaymentLookupOutcome outcome, String reference, String detail) {
        return new LookupResult(false, outcome, reference, detail, null, true);
    }

    static LookupResult staleOwner(FencingToken highestAccepted) {
        return new LookupResult(true, null, null, null, highestAccepted, false);
    }
}
