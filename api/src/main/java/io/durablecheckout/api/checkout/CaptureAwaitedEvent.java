package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.serialization.Revision;

/**
 * awaiting_capture: the order is confirmed and the receipt sent; the payment stays authorized until the tenant
 * captures it (deferred capture) or the hold lapses at {@code holdExpiresAt}.
 */
@Revision("1")
public record CaptureAwaitedEvent(CheckoutId checkoutId, java.time.Instant holdExpiresAt) implements CheckoutEvent {
}
