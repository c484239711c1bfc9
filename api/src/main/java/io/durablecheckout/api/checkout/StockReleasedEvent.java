package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;

public record StockReleasedEvent(CheckoutId checkoutId, OperationId operationId, FencingToken fencingToken) implements CheckoutEvent {
}
