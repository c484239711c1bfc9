package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
/** refund_confirmed: the provider confirmed the refund. */
public record PaymentRefundedEvent(CheckoutId checkoutId, OperationId operationId, FencingToken fencingToken, String providerReference) implements CheckoutEvent {
}
