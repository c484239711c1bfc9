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
import io.durablecheckout.orchestrator.deadletter.IntakeParking;
import io.durablecheckout.orchestrator.web.StockAdmin;
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

    /** Passed: the processor is past the intent and, for payments, its row left the intake (decision 132; the token is
     *  read first: the row is inserted in the transaction that moves it, so past with no row is done or parked). */
    static IntentProgress progressOf(JdbcTemplate jdbc, Serializer serializer) {
        ProcessorPositions positions = new ProcessorPositions(jdbc, serializer);
        return (checkout, step, sequenceNumber) -> positions.passed(processorOf(step), checkout.value(), sequenceNumber)
                && !(PaymentsWorker.PROCESSING_GROUP.equals(processorOf(step))
                        && PaymentIntake.holds(jdbc, checkout.value(), sequenceNumber));
    }

    /** Failed drained payment calls: retried from the intake or parked with the processor's dead letters. */
    @Bean
    PaymentIntake.Parking paymentIntakeParking(ObjectProvider<org.axonframework.config.Configuration> axon) {
        IntakeParking parking = new IntakeParking(axon, PaymentsWorker.PROCESSING_GROUP);
        return PaymentIntake.Parking.of(parking::park, parking::parkBehind, parking.parkedCondition());
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
