package io.durablecheckout.api.activity;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/**
 * The provider needs the customer before it decides (3-D Secure): neither authorized nor declined yet.
 * {@code nextAction} is what the client must show, as the provider gave it (JSON text, e.g. Stripe's
 * {@code next_action}); the outcome comes later by the provider's notification.
 */
@Revision("1")
public record PaymentAuthorizationActionRequiredEvent(CheckoutId checkoutId, OperationId operationId,
                                                      FencingToken fencingToken, String nextAction,
                                                      String providerReference) implements ActivityResultEvent {
    @Override
    public Step step() {
        return Step.AUTHORIZE_PAYMENT;
    }
}
