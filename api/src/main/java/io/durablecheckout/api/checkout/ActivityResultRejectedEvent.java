package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/** A result came from a stale owner (older token than the newest issued); recorded, never applied. */
@Revision("1")
public record ActivityResultRejectedEvent(CheckoutId checkoutId, Step step, OperationId operationId,
                                          FencingToken presentedToken, FencingToken currentToken)
        implements CheckoutEvent {
}
