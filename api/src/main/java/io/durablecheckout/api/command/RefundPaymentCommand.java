package io.durablecheckout.api.command;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Money;
import org.axonframework.modelling.command.TargetAggregateIdentifier;
import org.axonframework.modelling.command.TargetAggregateVersion;

import java.time.Instant;

/**
 * Operator: return {@code amount} of what a completed checkout's capture took (a partial refund), under an operation
 * id of its own. At most what was captured and not yet refunded; why: in metadata.
 */
public record RefundPaymentCommand(@TargetAggregateIdentifier CheckoutId checkoutId, Money amount,
                                   @TargetAggregateVersion Long expectedVersion, Instant requestedAt)
        implements CheckoutCommand {
}
