package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/** An operator sent the blocked step around again (same operation id, fresh attempt budget). Who: in metadata. */
@Revision("1")
public record OperatorRetryRequestedEvent(CheckoutId checkoutId, Step step) implements CheckoutEvent {
}
