package io.durablecheckout.orchestrator.deadletter;

import org.axonframework.config.Configuration;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.messaging.deadletter.GenericDeadLetter;
import org.axonframework.messaging.deadletter.SequencedDeadLetterQueue;
import org.springframework.beans.factory.ObjectProvider;

/**
 * A drained payment call that failed: the database's trouble is retried from the intake; anything else is parked in
 * the payments processor's dead-letter queue, by the policy and with the cause its processor would record, so operators
 * see and retry it with the other parked events; a checkout's later intents park behind it (decision 132). Sequenced
 * as the processor's queue is: by the checkout.
 */
public final class IntakeParking {

    private final PoisonEventPolicy policy = new PoisonEventPolicy();
    private final ObjectProvider<Configuration> axon;
    private final String processingGroup;

    /** @param processingGroup the payments processor, whose dead-letter queue parks them */
    public IntakeParking(ObjectProvider<Configuration> axon, String processingGroup) {
        this.axon = axon;
        if (!processingGroup.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("not a processing group name: " + processingGroup);
        }
        this.processingGroup = processingGroup;
    }

    /** Parks a failed call (true), or leaves it to be retried from the intake (false). */
    public boolean park(EventMessage<?> intent, Throwable failure) {
        if (PoisonEventPolicy.isTransient(failure) || !(intent instanceof DomainEventMessage<?> event)) {
            return false;
        }
        SequencedDeadLetterQueue<EventMessage<?>> queue = queue();
        if (queue == null) {
            return false;
        }
        String sequence = event.getAggregateIdentifier();
        GenericDeadLetter<EventMessage<?>> letter = new GenericDeadLetter<>(sequence, intent);
        var decision = policy.decide(letter, failure);
        if (!decision.shouldEnqueue()) {
            return false;
        }
        queue.enqueue(sequence, decision.enqueueCause().map(letter::withCause).orElse(letter));
        return true;
    }

    /** Parks the intent behind its checkout's parked events, if it has any (true). */
    public boolean parkBehind(EventMessage<?> intent) {
        SequencedDeadLetterQueue<EventMessage<?>> queue = queue();
        return queue != null && intent instanceof DomainEventMessage<?> event
                && queue.enqueueIfPresent(event.getAggregateIdentifier(),
                        () -> new GenericDeadLetter<>(event.getAggregateIdentifier(), intent));
    }

    /**
     * Whether an intake row's checkout has events parked in this group's queue, as SQL asked in the intake's claim: a
     * row without any costs no query of the queue (Axon's JDBC queue keys a string sequence by itself).
     */
    public String parkedCondition() {
        return "EXISTS (SELECT 1 FROM deadletterentry d WHERE d.processinggroup = '" + processingGroup
                + "' AND d.sequenceidentifier = checkout_id)";
    }

    private SequencedDeadLetterQueue<EventMessage<?>> queue() {
        return axon.getObject().eventProcessingConfiguration().deadLetterQueue(processingGroup)
                .orElse(null);
    }
}
