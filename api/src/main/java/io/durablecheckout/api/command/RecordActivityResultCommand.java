package io.durablecheckout.api.command;

import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

import java.time.Instant;

/**
 * Asks the Checkout aggregate to record what an activity reported. The aggregate, which issued the fencing tokens,
 * decides whether the result is current, a duplicate, or from a stale owner.
 *
 * @param observedAt when the result was published (the event's own timestamp, not a clock read)
 */
public record RecordActivityResultCommand(@TargetAggregateIdentifier CheckoutId checkoutId,
                                          ActivityResultEvent result, Instant observedAt)
        implements CheckoutCommand {
}
