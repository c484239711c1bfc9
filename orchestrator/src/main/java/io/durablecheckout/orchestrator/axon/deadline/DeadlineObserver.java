package io.durablecheckout.orchestrator.axon.deadline;

import org.axonframework.deadline.DeadlineMessage;
import org.axonframework.messaging.ScopeDescriptor;

import java.time.Instant;

/**
 * What {@link LeaseDeadlineManager} tells the product of each schedule and cancel, in the unit of work that decided
 * it: the product records them as its decisions' timers, so replay compares them (docs/replay.md). It also strips from
 * a deadline's metadata what must not travel with it. This package knows no product class: the product implements it.
 */
public interface DeadlineObserver {

    void scheduled(String scheduleId, Instant due, String deadlineName, Object payload, ScopeDescriptor scope);

    void cancelled(String deadlineName, String scheduleId);

    /** The deadline message as it is stored: by default unchanged. */
    default <T> DeadlineMessage<T> strip(DeadlineMessage<T> message) {
        return message;
    }
}
