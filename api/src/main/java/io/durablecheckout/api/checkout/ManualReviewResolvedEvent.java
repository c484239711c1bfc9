package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.serialization.Revision;

/** An operator's decision with evidence; who and when travel in the message metadata. */
@Revision("1")
public record ManualReviewResolvedEvent(CheckoutId checkoutId, ManualResolution resolution, String providerReference, String note) implements CheckoutEvent {
}
