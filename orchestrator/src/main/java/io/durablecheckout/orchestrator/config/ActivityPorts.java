package io.durablecheckout.orchestrator.config;

import io.durablecheckout.activities.Savepoints;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.activities.payments.PaymentIntake;
import io.durablecheckout.activities.payments.PaymentProvider;
import io.durablecheckout.activities.payments.PaymentsWorker;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.axon.eventstore.ProcessorPositions;
import io.durablecheckout.orchestrator.checkout.IntentProgress;
import io.durablecheckout.orchestrator.dashboard.ProviderLookup;
import io.durablecheckout.orchestrator.deadletter.GuardedRetry;
import io.durablecheckout.orchestrator.deadletter.PoisonEventPolicy;
import io.durablecheckout.orchestrator.web.StockAdmin;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.messaging.deadletter.GenericDeadLetter;
import org.axonframework.messaging.deadletter.SequencedDeadLetterQueue;
import org.axonframework.serialization.Serializer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The ports through which the orchestrator's own code reaches the activity services' components: the wiring is the
 * only place of the orchestrator that imports the activities module (an architecture test holds it to that).
 */
@Configuration(proxyBeanMethods = false)
class ActivityPorts {

    @Bean
    ProviderLookup providerLookup(ObjectProvider<PaymentProvider> provider) {
        return new ProviderLookup() {
            @Override
            public boolean available() {
                return provider.getIfAvailable() != null;
            }

            @Override
            public Answer lookup(OperationId authorization, OperationId asking) {
                PaymentProvider.LookupAnswer answer = provider.getObject().lookup(authorization, asking);
                return new Answer(answer.outcome(), answer.reference(), answer.detail());
            }
        };
    }

    @Bean
    StockAdmin stockAdmin(ObjectProvider<InventoryAdmin> inventory) {
        return new StockAdmin() {
            @Override
            public boolean available() {
                return inventory.getIfAvailable() != null;
            }

            @Override
            public boolean seed(TenantId tenantId, String sku, long quantity) {
                return inventory.getObject().seed(tenantId, sku, quantity);
            }
        };
    }

    /** Whether a step's processor has passed an intent: the lease rule's I/O (docs/leases-and-fencing.md). */
    @Bean
    IntentProgress intentProgress(JdbcTemplate jdbc, Serializer serializer) {
        return progressOf(jdbc, serializer);
    }

    /**
     * Passed: the step's processor is past the intent and, for payments, the intent's row has left the intake
     * (decision 132: a row still queued or in a call is an intent its worker has not passed). The token is read
     * first: the row is inserted in the transaction that moves it, so a passed token with no row means done or parked.
     */
    static IntentProgress progressOf(JdbcTemplate jdbc, Serializer serializer) {
        ProcessorPositions positions = new ProcessorPositions(jdbc, serializer);
        return (checkout, step, sequenceNumber) -> positions.passed(processorOf(step), checkout.value(), sequenceNumber)
                && !(PaymentsWorker.PROCESSING_GROUP.equals(processorOf(step))
                        && PaymentIntake.holds(jdbc, checkout.value(), sequenceNumber));
    }

    /**
     * A drained payment call that failed: the database's trouble is retried from the intake; anything else is parked
     * in the payments processor's dead-letter queue, by the policy and with the cause its processor would record, so
     * operators see and retry it with the other parked events; a checkout's later intents park behind it (decision
     * 132). Sequenced as the processor's queue is: by the checkout.
     */
    @Bean
    PaymentIntake.Parking paymentIntakeParking(ObjectProvider<org.axonframework.config.Configuration> axon) {
        PoisonEventPolicy policy = new PoisonEventPolicy();
        return new PaymentIntake.Parking() {
            @Override
            public boolean park(EventMessage<?> intent, Throwable failure) {
                if (PoisonEventPolicy.isTransient(failure) || !(intent instanceof DomainEventMessage<?> event)) {
                    return false;
                }
                var queue = queue();
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

            @Override
            public boolean parkBehind(EventMessage<?> intent) {
                var queue = queue();
                return queue != null && intent instanceof DomainEventMessage<?> event
                        && queue.enqueueIfPresent(event.getAggregateIdentifier(),
                                () -> new GenericDeadLetter<>(event.getAggregateIdentifier(), intent));
            }

            private SequencedDeadLetterQueue<EventMessage<?>> queue() {
                return axon.getObject().eventProcessingConfiguration()
                        .deadLetterQueue(PaymentsWorker.PROCESSING_GROUP).orElse(null);
            }
        };
    }

    /** The processing group whose workers handle {@code step}'s intents: the service the step names. */
    static String processorOf(Step step) {
        return step.service();
    }

    @Bean
    GuardedRetry guardedRetry() {
        return work -> Savepoints.alwaysGuarded(work::getAsBoolean);
    }
}
