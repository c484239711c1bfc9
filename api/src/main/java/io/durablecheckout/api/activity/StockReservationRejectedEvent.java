package io.durablecheckout.api.activity;

import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

@Revision("1")
public record StockReservationRejectedEvent(CheckoutId checkoutId, OperationId operationId,
                                            FencingToken fencingToken, CancellationReason reason, String detail)
        implements ActivityResultEvent {
    @Override
    public Step step() {
        return Step.RESERVE_STOCK;
    }
}
