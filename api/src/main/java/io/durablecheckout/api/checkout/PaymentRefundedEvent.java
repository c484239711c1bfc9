package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import org.axonframework.serialization.Revision;
/** refund_confirmed: the provider confirmed the refund. */
@Revision("1")
public record PaymentRefundedEvent(CheckoutId checkoutId, OperationId operationId, FencingToken fencingToken, String providerReference) implements CheckoutEvent {
}
