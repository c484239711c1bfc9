package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/**
 * An operator ordered a payment operation on a completed checkout: a partial refund ({@code refund-payment}), or the
 * capture or release of a hold recorded before capture was a step. It runs under {@code operationId}, an id of its
 * own, and leaves the checkout completed. Who and why: in metadata.
 */
@Revision("1")
public record PaymentOperationOrderedEvent(CheckoutId checkoutId, Step step, OperationId operationId, Money amount)
        implements CheckoutEvent {
}
