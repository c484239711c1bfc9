package io.durablecheckout.api.command;

import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.modelling.command.TargetAggregateIdentifier;
import org.axonframework.modelling.command.TargetAggregateVersion;

import java.time.Instant;

/** An operator's finding, with evidence, for a checkout in manual review. Who and why travel in metadata. */
public record ResolveManualReviewCommand(@TargetAggregateIdentifier CheckoutId checkoutId, ManualResolution resolution,
                                         String providerReference, String note,
                                         @TargetAggregateVersion Long expectedVersion, Instant resolvedAt)
        implements CheckoutCommand {
}
