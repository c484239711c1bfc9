package io.durablecheckout.activities.inventory;

import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.values.FencingToken;

/**
 * What {@link InventoryResource#reserve} did.
 *
 * @param replayed        true when the outcome was already recorded (duplicate delivery or new owner of a finished
 *                        operation): nothing was done this time
 * @param highestAccepted for {@link Status#STALE}: the newest token the resource had accepted
 */
public record ReservationOutcome(Status status, CancellationReason reason, String detail, boolean replayed,
                                 FencingToken highestAccepted) {

    public enum Status { RESERVED, REJECTED, STALE }

    static ReservationOutcome reserved(boolean replayed) {
        return new ReservationOutcome(Status.RESERVED, null, null, replayed, null);
    }

    static ReservationOutcome rejected(CancellationReason reason, String detail, boolean replayed) {
        return new ReservationOutcome(Status.REJECTED, reason, detail, replayed, null);
    }

    static ReservationOutcome stale(FencingToken highestAccepted) {
        return new ReservationOutcome(Status.STALE, null, null, false, highestAccepted);
    }
}
