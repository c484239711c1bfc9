package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.serialization.Revision;

@Revision("1")
public record CheckoutCancelledEvent(CheckoutId checkoutId, CancellationReason reason, String detail)
        implements CheckoutEvent {
}
