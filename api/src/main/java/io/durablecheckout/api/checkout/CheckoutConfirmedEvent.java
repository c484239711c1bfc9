package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;

/** The order is confirmed: stock is held and payment authorized. Decided by the aggregate, not a side effect. */
public record CheckoutConfirmedEvent(CheckoutId checkoutId) implements CheckoutEvent {
}
