package io.durablecheckout.api.activity;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/**
 * The provider's answer to a reconciliation lookup under the authorization's original operation id.
 *
 * @param operationId the lookup's own operation id (the reconciliation step)
 */
@Revision("1")
public record PaymentLookupAnsweredEvent(CheckoutId checkoutId, OperationId operationId, FencingToken fencingToken,
                                         OperationId authorizationOperationId, PaymentLookupOutcome outcome,
                                         String providerReference, String detail) implements ActivityResultEvent {
    @Override
    public Step step() {
        return Step.RECONCILE_PAYMENT;
    }
}
