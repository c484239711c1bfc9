package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.serialization.Revision;

/**
 * Ask the provider what became of the authorization, under its original operation id.
 *
 * @param lookupNumber 1 for the first lookup, increasing with each backoff round
 */
@Revision("1")
public record PaymentReconciliationRequestedEvent(CheckoutId checkoutId, TenantId tenantId,
                                                  OperationId authorizationOperationId, int lookupNumber,
                                                  Lease lease) implements CheckoutEvent, ActivityIntent {
    @Override
    public Step step() {
        return Step.RECONCILE_PAYMENT;
    }
}
