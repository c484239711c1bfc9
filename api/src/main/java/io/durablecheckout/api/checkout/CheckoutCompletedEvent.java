package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.serialization.Revision;

@Revision("1")
public record CheckoutCompletedEvent(CheckoutId checkoutId) implements CheckoutEvent {
}
