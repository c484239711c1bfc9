package io.durablecheckout.activities.payments;

import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.values.FencingToken;

/** What {@link PaymentsResource#lookup} learned; {@code outcome} is null when the lookup owner was stale. */
public record LookupResult(boolean stale, PaymentLookupOutcome outcome, String providerReference, String detail,
                           FencingToken highestAccepted) {

    static LookupResult answered(PaymentLookupOutcome outcome, String reference, String detail) {
        return new LookupResult(false, outcome, reference, detail, null);
    }

    static LookupResult staleOwner(FencingToken highestAccepted) {
        return new LookupResult(true, null, null, null, highestAccepted);
    }
}
