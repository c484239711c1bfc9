package io.durablecheckout.activities;

import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.values.FencingToken;

import java.util.Locale;

/** Small helpers every worker shares when turning a resource outcome into a result event. */
public final class IntentResults {

    private IntentResults() {
    }

    /** The report a resource's refusal of a stale owner becomes: the intent's own id and token, and the winner's. */
    public static StaleOwnerRejectedEvent staleOwner(ActivityIntent intent, FencingToken highestAccepted,
                                                     String resource) {
        return new StaleOwnerRejectedEvent(intent.checkoutId(), intent.step(), intent.lease().operationId(),
                intent.lease().fencingToken(), highestAccepted, resource);
    }

    /** Metric tag: {@code duplicate} when the outcome was re-published from the record, else the outcome's name. */
    public static String outcomeTag(Enum<?> outcome, boolean replayed) {
        return replayed ? "duplicate" : outcome.name().toLowerCase(Locale.ROOT);
    }
}
