package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Step;

/**
 * The port through which the Checkout's shell learns whether a step's processor has passed an intent (handled it, or
 * parked it): the I/O behind the lease rule "an unclaimed lease expires only once its intent was passed"
 * (docs/leases-and-fencing.md). Implemented outside the core, from the processors' token positions; what it answered
 * is recorded with the deadline's input, so replay decides with the same answer.
 */
@FunctionalInterface
public interface IntentProgress {

    /**
     * Whether the processor that handles {@code step}'s intents has passed event {@code sequenceNumber} of checkout
     * {@code checkoutId} (the intent) on every segment that could hold it. When unsure, {@code false}.
     */
    boolean passed(CheckoutId checkoutId, Step step, long sequenceNumber);
}
