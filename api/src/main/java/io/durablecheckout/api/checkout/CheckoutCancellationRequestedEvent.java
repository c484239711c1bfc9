package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;

/** A customer or operator asked to cancel; compensations follow for whatever had been done. */
public record CheckoutCancellationRequestedEvent(CheckoutId checkoutId, CancellationReason reason, String detail) implements CheckoutEvent {
}
