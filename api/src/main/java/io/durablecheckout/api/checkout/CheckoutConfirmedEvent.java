package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.serialization.Revision;

/** The order is confirmed: stock is held and payment authorized. Decided by the aggregate, not a side effect. */
@Revision("1")
public record CheckoutConfirmedEvent(CheckoutId checkoutId) implements CheckoutEvent {
}
