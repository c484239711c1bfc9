package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import org.axonframework.serialization.Revision;

/** The provider took {@code amount}: from here a compensation refunds (at most this much), it no longer voids. */
@Revision("1")
public record PaymentCapturedEvent(CheckoutId checkoutId, OperationId operationId, FencingToken fencingToken,
                                   String providerReference, Money amount) implements CheckoutEvent {
}
