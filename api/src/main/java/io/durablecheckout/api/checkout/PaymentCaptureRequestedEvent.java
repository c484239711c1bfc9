package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.serialization.Revision;

/**
 * Take {@code amount} (at most the authorized amount) of the authorization {@code authorizationOperationId}, under
 * the capture's own operation id (the lease's): the provider's idempotency key, so a retried or re-owned capture is
 * never a second one. The checkout is capture_pending until the provider answers.
 */
@Revision("1")
public record PaymentCaptureRequestedEvent(CheckoutId checkoutId, TenantId tenantId,
                                           OperationId authorizationOperationId, Money amount, Lease lease)
        implements CheckoutEvent, ActivityIntent {
    @Override
    public Step step() {
        return Step.CAPTURE_PAYMENT;
    }
}
