package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.CheckoutId;

/**
 * The lease's deadline came while no owner had claimed the intent (no heartbeat from a worker holding it): the intent
 * still waits for a worker, so its lease has not started to run and nothing is re-issued. Same operation, attempt and
 * token; checked again at {@code lease.expiresAt()}. A lease runs while an owner holds it, not while its intent waits.
 */
public record ActivityLeaseDeferredEvent(CheckoutId checkoutId, Step step, Lease lease) implements CheckoutEvent {
}
