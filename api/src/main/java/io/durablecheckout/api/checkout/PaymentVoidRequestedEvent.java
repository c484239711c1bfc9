package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.serialization.Revision;

/** Compensation: cancel an authorization that was never captured. */
@Revision("1")
public record PaymentVoidRequestedEvent(CheckoutId checkoutId, TenantId tenantId,
                                        OperationId authorizationOperationId, Money amount, Lease lease)
        implements CheckoutEvent, ActivityIntent {
    @Override
    public Step step() {
        return Step.VOID_PAYMENT;
    }
}
