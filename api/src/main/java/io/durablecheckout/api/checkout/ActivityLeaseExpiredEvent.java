package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/** The lease ran out with no result: its owner is presumed stale. A new intent with the next token follows. */
@Revision("1")
public record ActivityLeaseExpiredEvent(CheckoutId checkoutId, Step step, Lease expiredLease)
        implements CheckoutEvent {
}
