package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.serialization.Revision;

/** Compensation after confirmation: return the money. The checkout is refund_requested until the provider confirms. */
@Revision("1")
public record PaymentRefundRequestedEvent(CheckoutId checkoutId, TenantId tenantId,
                                          OperationId authorizationOperationId, Money amount, Lease lease)
        implements CheckoutEvent, ActivityIntent {
    @Override
    public Step step() {
        return Step.REFUND_PAYMENT;
    }
}
