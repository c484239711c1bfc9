package io.durablecheckout.api.command;

import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.modelling.command.TargetAggregateIdentifier;
import org.axonframework.modelling.command.TargetAggregateVersion;

import java.time.Instant;

/** A customer or an operator asks to cancel. {@code expectedVersion} (If-Match) may be null for customers. */
public record RequestCancellationCommand(@TargetAggregateIdentifier CheckoutId checkoutId, CancellationReason reason,
                                         String detail, @TargetAggregateVersion Long expectedVersion,
                                         Instant requestedAt) implements CheckoutCommand {
}
