package io.durablecheckout.api.activity;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/** The provider call timed out or broke after the request may have reached it: the outcome is unknown, not declined. */
@Revision("1")
public record PaymentAuthorizationOutcomeUnknownEvent(CheckoutId checkoutId, OperationId operationId, FencingToken fencingToken, String reason)
        implements ActivityResultEvent {
    @Override
    public Step step() {
        return Step.AUTHORIZE_PAYMENT;
    }
}
