package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;

/** The lease ran out with no result: its owner is presumed stale. A new intent with the next token follows. */
public record ActivityLeaseExpiredEvent(CheckoutId checkoutId, Step step, Lease expiredLease)
        implements CheckoutEvent {
}
