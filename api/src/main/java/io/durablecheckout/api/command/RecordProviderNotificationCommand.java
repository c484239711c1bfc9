package io.durablecheckout.api.command;

import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.OperationId;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

import java.time.Instant;

/**
 * The payment provider's own notification (webhook) about an authorization. Evidence like a lookup answer: applied
 * only while the outcome is unknown; a duplicate or late one changes nothing; one that contradicts the recorded
 * outcome is not applied but sent to manual review.
 *
 * @param outcome AUTHORIZED or DECLINED
 */
public record RecordProviderNotificationCommand(@TargetAggregateIdentifier CheckoutId checkoutId,
                                                OperationId authorizationOperationId, PaymentLookupOutcome outcome,
                                                String providerReference, String notificationId, Instant receivedAt)
        implements CheckoutCommand {
}
