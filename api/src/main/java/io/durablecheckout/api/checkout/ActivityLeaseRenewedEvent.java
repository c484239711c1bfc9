package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/** The owner of the current lease sent a heartbeat in time: same operation, attempt and token, a later expiry. */
@Revision("1")
public record ActivityLeaseRenewedEvent(CheckoutId checkoutId, Step step, Lease lease) implements CheckoutEvent {
}
