package io.durablecheckout.activities.receipts;

import io.durablecheckout.api.values.FencingToken;

/**
 * What {@link ReceiptsResource} did with a message.
 *
 * @param replayed true when the message had already been sent under this operation id: nothing was sent this time
 */
public record DeliveryOutcome(Status status, boolean replayed, FencingToken highestAccepted) {

    public enum Status { SENT, STALE }

    static DeliveryOutcome sent(boolean replayed) {
        return new DeliveryOutcome(Status.SENT, replayed, null);
    }

    static DeliveryOutcome stale(FencingToken highestAccepted) {
        return new DeliveryOutcome(Status.STALE, false, highestAccepted);
    }
}
