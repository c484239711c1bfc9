package io.durablecheckout.api.command;

import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.modelling.command.TargetAggregateIdentifier;
import org.axonframework.modelling.command.TargetAggregateVersion;

import java.time.Instant;

/** Operator: try the step that sent the checkout to manual review again, under its same operation id. */
public record RetryActivityCommand(@TargetAggregateIdentifier CheckoutId checkoutId,
                                   @TargetAggregateVersion Long expectedVersion, Instant requestedAt)
        implements CheckoutCommand {
}
