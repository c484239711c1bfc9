package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import org.axonframework.serialization.Revision;

@Revision("1")
public record StockReservedEvent(CheckoutId checkoutId, OperationId operationId, FencingToken fencingToken)
        implements CheckoutEvent {
}
