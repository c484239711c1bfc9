package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.serialization.Revision;

/** A customer or operator asked to cancel; compensations follow for whatever had been done. */
@Revision("1")
public record CheckoutCancellationRequestedEvent(CheckoutId checkoutId, CancellationReason reason, String detail) implements CheckoutEvent {
}
