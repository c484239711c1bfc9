package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.serialization.Revision;

/**
 * The provider's notification contradicts the payment outcome already recorded. Not applied: the workflow keeps
 * its course, and the dispute stays open for an operator (it puts the checkout in the manual review queue) until
 * resolved. If money must move, the operator cancels, which voids or refunds.
 */
@Revision("1")
public record PaymentOutcomeDisputedEvent(CheckoutId checkoutId, ManualResolution recordedOutcome,
                                          ManualResolution reportedOutcome, String notificationId,
                                          String providerReference) implements CheckoutEvent {
}
