package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;

import java.util.List;
import org.axonframework.serialization.Revision;

@Revision("1")
public record StockReservationRequestedEvent(CheckoutId checkoutId, TenantId tenantId, List<LineItem> items,
                                             Lease lease) implements CheckoutEvent, ActivityIntent {
    @Override
    public Step step() {
        return Step.RESERVE_STOCK;
    }
}
