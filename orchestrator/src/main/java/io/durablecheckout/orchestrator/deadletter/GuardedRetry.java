package io.durablecheckout.orchestrator.deadletter;

import java.util.function.BooleanSupplier;

/**
 * Runs an operator's retry of parked events with every intent under a savepoint of its own, so one that fails again is
 * parked again without aborting the others: the port the wiring gives the dead-letter service over the activities'
 * savepoints.
 */
@FunctionalInterface
public interface GuardedRetry {
    boolean run(BooleanSupplier work);
}
