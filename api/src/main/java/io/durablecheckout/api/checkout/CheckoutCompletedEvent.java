package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;

public record CheckoutCompletedEvent(CheckoutId checkoutId) implements CheckoutEvent {
}
