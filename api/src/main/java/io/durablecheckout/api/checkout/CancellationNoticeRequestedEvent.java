package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.serialization.Revision;

/** A receipt cannot be unsent: after one was sent, a cancellation is announced with a new message. */
@Revision("1")
public record CancellationNoticeRequestedEvent(CheckoutId checkoutId, TenantId tenantId, String customerEmail,
                                               Lease lease) implements CheckoutEvent, ActivityIntent {
    @Override
    public Step step() {
        return Step.SEND_CANCELLATION_NOTICE;
    }
}
