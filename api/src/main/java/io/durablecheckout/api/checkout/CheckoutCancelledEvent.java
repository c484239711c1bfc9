package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;

public record CheckoutCancelledEvent(CheckoutId checkoutId, CancellationReason reason, String detail)
        implements CheckoutEvent {
}
