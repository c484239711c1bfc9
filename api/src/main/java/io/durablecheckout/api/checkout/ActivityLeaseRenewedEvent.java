package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;

/** The owner of the current lease sent a heartbeat in time: same operation, attempt and token, a later expiry. */
public record ActivityLeaseRenewedEvent(CheckoutId checkoutId, Step step, Lease lease) implements CheckoutEvent {
}
