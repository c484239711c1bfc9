package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Step;

/** An operator sent the blocked step around again (same operation id, fresh attempt budget). Who: in metadata. */
public record OperatorRetryRequestedEvent(CheckoutId checkoutId, Step step) implements CheckoutEvent {
}
