package io.durablecheckout.activities.inventory;

import io.durablecheckout.api.values.FencingToken;

/**
 * What {@link InventoryResource#release} did.
 *
 * @param unitsReturned units moved back to available by this call (0 when replayed or nothing was held)
 */
public record ReleaseOutcome(Status status, long unitsReturned, String detail, boolean replayed,
                             FencingToken highestAccepted) {

    public enum Status { RELEASED, STALE }

    static ReleaseOutcome released(long unitsReturned, String detail, boolean replayed) {
        return new ReleaseOutcome(Status.RELEASED, unitsReturned, detail, replayed, null);
    }

    static ReleaseOutcome stale(FencingToken highestAccepted) {
        return new ReleaseOutcome(Status.STALE, 0, null, false, highestAccepted);
    }
}
