package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import org.axonframework.serialization.Revision;
/** A timeout is unknown, never declined: the authorization may have happened. Reconciliation follows. */
@Revision("1")
public record PaymentOutcomeUnknownEvent(CheckoutId checkoutId, OperationId operationId, FencingToken fencingToken, String reason) implements CheckoutEvent {
}
