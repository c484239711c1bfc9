package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;

public record PaymentDeclinedEvent(CheckoutId checkoutId, OperationId operationId, FencingToken fencingToken, String reason) implements CheckoutEvent {
}
