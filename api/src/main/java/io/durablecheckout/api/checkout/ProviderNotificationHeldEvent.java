package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.OperationId;

import java.time.Instant;

/**
 * The provider notified an outcome while the payment outcome was still unknown but someone else owned the checkout
 * (an operator, in manual review; or a compensation already under way). Not applied then: kept as evidence, shown to
 * the operator, and offered (and usable) when the review is resolved. Recorded once per notification id.
 */
public record ProviderNotificationHeldEvent(CheckoutId checkoutId, OperationId authorizationOperationId,
                                            ManualResolution reportedOutcome, String providerReference,
                                            String notificationId, Instant receivedAt) implements CheckoutEvent {
}
