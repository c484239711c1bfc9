package io.durablecheckout.api.command;

import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.modelling.command.TargetAggregateIdentifier;

import java.time.Instant;

/**
 * The orchestrator's timer watchdog: the read model shows this checkout waiting past its next deadline with no
 * deadline row left for it. The checkout schedules again every timer its state still waits for; appends nothing.
 */
public record RearmOverdueTimersCommand(@TargetAggregateIdentifier CheckoutId checkoutId, Instant observedAt)
        implements CheckoutCommand {
}
