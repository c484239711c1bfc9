package io.durablecheckout.api.command;

import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.modelling.command.TargetAggregateIdentifier;
import org.axonframework.modelling.command.TargetAggregateVersion;

import java.time.Instant;

/**
 * Operator: capture ({@code capture}) or release (void) the authorization a checkout completed before capture was a
 * step (rules version below 3) still holds. Why: in metadata.
 */
public record SettleHoldCommand(@TargetAggregateIdentifier CheckoutId checkoutId, boolean capture,
                                @TargetAggregateVersion Long expectedVersion, Instant requestedAt)
        implements CheckoutCommand {
}
