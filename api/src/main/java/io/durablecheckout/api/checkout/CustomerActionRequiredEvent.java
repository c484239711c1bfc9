package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import org.axonframework.serialization.Revision;

import java.time.Instant;

/**
 * customer_action_required: the authorization {@code operationId} waits for the customer (3-D Secure). The client shows
 * {@code nextAction} (JSON text, as the provider gave it); the provider's notification settles the payment; at
 * {@code until} a checkout still waiting is cancelled (void, stock release).
 */
@Revision("1")
public record CustomerActionRequiredEvent(CheckoutId checkoutId, OperationId operationId, FencingToken fencingToken,
                                          String nextAction, String providerReference, Instant until)
        implements CheckoutEvent {
}
