package io.durablecheckout.activities.receipts;

import io.durablecheckout.api.values.FencingToken;

/**
 * What {@link ReceiptsResource} did with a message.
 *
 * @param replayed true when the outcome had already been recorded under this operation id: nothing was sent this time
 * @param detail   for FAILED: what the mail service answered
 * @param finalFailure for FAILED: the recipient was refused for good (recorded; never sent again)
 */
public record DeliveryOutcome(Status status, boolean replayed, FencingToken highestAccepted, String detail,
                              boolean finalFailure) {

    public enum Status { SENT, STALE, FAILED }

    static DeliveryOutcome sent(boolean replayed) {
        return new DeliveryOutcome(Status.SENT, replayed, null, null, false);
    }

    static DeliveryOutcome stale(FencingToken highestAccepted) {
        return new DeliveryOutcome(Status.STALE, false, highestAccepted, null, false);
    }

    static DeliveryOutcome failed(String detail, boolean finalFailure, boolean replayed) {
        return new DeliveryOutcome(Status.FAILED, replayed, null, detail, finalFailure);
    }
}
