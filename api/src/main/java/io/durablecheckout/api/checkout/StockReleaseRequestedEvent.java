package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.serialization.Revision;

/** Compensation: give back what the reservation under {@code reservationOperationId} holds. */
@Revision("1")
public record StockReleaseRequestedEvent(CheckoutId checkoutId, TenantId tenantId, OperationId reservationOperationId,
                                         Lease lease) implements CheckoutEvent, ActivityIntent {
    @Override
    public Step step() {
        return Step.RELEASE_STOCK;
    }
}
