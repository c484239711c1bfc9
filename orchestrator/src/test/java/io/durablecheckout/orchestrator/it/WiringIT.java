package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.axon.saga.AssociationPartitionedSagaManager;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;

import io.durablecheckout.orchestrator.axon.aggregate.ConstructorAggregateFactory;
import io.durablecheckout.orchestrator.axon.aggregate.CachedCommandTargetResolver;

import io.durablecheckout.orchestrator.axon.aggregate.StaleCopyHandlerEnhancer;
import io.durablecheckout.orchestrator.axon.saga.ClaimWatchingTokenStore;

import io.durablecheckout.orchestrator.axon.saga.ChangedOnlySagaStore;
import io.durablecheckout.orchestrator.saga.CheckoutSaga;
import io.durablecheckout.orchestrator.config.EventProcessingConfiguration;
import io.durablecheckout.orchestrator.config.WiringVerifier;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.deadline.dbscheduler.DbSchedulerDeadlineManager;
import org.axonframework.eventhandling.EventProcessor;
import org.axonframework.eventhandling.pooled.PooledStreamingEventProcessor;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.eventhandling.tokenstore.jdbc.JdbcTokenStore;
import org.axonframework.eventsourcing.eventstore.EmbeddedEventStore;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.modelling.saga.repository.SagaStore;
import org.axonframework.modelling.saga.repository.jdbc.JdbcSagaStore;
import org.axonframework.serialization.json.JacksonSerializer;
import org.axonframework.spring.messaging.unitofwork.SpringTransactionManager;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Axon falls back silently to non-durable parts (in-memory deadlines, no transactions, XStream, log-and-skip).
 * This pins down that the running application has the real ones.
 */
class WiringIT extends IntegrationTestBase {

    @Autowired
    org.axonframework.config.Configuration axon;
    @Autowired
    WiringVerifier verifier;
    @Autowired
    EventStorageEngine storageEngine;
    @Autowired
    TokenStore tokenStore;
    @Autowired
    SagaStore<?> sagaStore;
    @Autowired
    DeadlineManager deadlineManager;

    @Test
    void theDurableComponentsAreTheRealOnes() {
        assertThat(verifier.problems()).isEmpty();
        assertThat(axon.deadlineManager()).isInstanceOf(DbSchedulerDeadlineManager.class).isSameAs(deadlineManager);
        assertThat(axon.getComponent(TransactionManager.class)).isInstanceOf(SpringTransactionManager.class);
        assertThat(axon.eventStore()).isInstanceOf(EmbeddedEventStore.class);
        assertThat(storageEngine).isInstanceOf(JdbcEventStorageEngine.class);
        assertThat(tokenStore).isInstanceOf(io.durablecheckout.orchestrator.axon.saga.ClaimWatchingTokenStore.class);
        assertThat(((io.durablecheckout.orchestrator.axon.saga.ClaimWatchingTokenStore) tokenStore).delegate())
                .isInstanceOf(JdbcTokenStore.class);
        assertThat(sagaStore).isInstanceOf(ChangedOnlySagaStore.class);
        assertThat(((ChangedOnlySagaStore) sagaStore).delegate()).isInstanceOf(JdbcSagaStore.class);
        // one saga registration, with its segments partitioned by checkout (decision 113)
        assertThat(axon.eventProcessingConfiguration().sagaConfigurations()).hasSize(1);
        assertThat(axon.eventProcessingConfiguration().sagaConfiguration(CheckoutSaga.class).manager())
                .isInstanceOf(io.durablecheckout.orchestrator.axon.saga.AssociationPartitionedSagaManager.class);
        assertThat(axon.serializer()).isInstanceOf(JacksonSerializer.class);
        assertThat(axon.eventSerializer()).isInstanceOf(JacksonSerializer.class);
        assertThat(axon.messageSerializer()).isInstanceOf(JacksonSerializer.class);
        // the Checkout is built by its constructor, not as a Spring prototype bean (decision 59)
        assertThat(((org.axonframework.eventsourcing.EventSourcingRepository<?>) axon
                .repository(io.durablecheckout.orchestrator.checkout.Checkout.class)).getAggregateFactory())
                .isInstanceOf(io.durablecheckout.orchestrator.axon.aggregate.ConstructorAggregateFactory.class);
        // served from the cache of decision 78, every decision on a cached copy confirmed by the stale-copy check
        assertThat(axon.repository(io.durablecheckout.orchestrator.checkout.Checkout.class))
                .isInstanceOf(org.axonframework.eventsourcing.CachingEventSourcingRepository.class);
        assertThat(enhancers(((org.axonframework.messaging.annotation.MultiHandlerDefinition) axon
                .handlerDefinition(io.durablecheckout.orchestrator.checkout.Checkout.class))
                .getHandlerEnhancerDefinition()))
                .anyMatch(e -> e instanceof io.durablecheckout.orchestrator.axon.aggregate.StaleCopyHandlerEnhancer);
        // and the command handler finds a command's checkout with the resolver that looks once per class
        org.axonframework.config.AggregateConfiguration<?> checkout = axon
                .findModules(org.axonframework.config.AggregateConfiguration.class).stream()
                .filter(m -> m.aggregateType() == io.durablecheckout.orchestrator.checkout.Checkout.class)
                .findFirst().orElseThrow();
        assertThat(((org.axonframework.config.Component<?>) org.springframework.test.util.ReflectionTestUtils
                .getField(checkout, "commandTargetResolver")).get())
                .isInstanceOf(io.durablecheckout.orchestrator.axon.aggregate.CachedCommandTargetResolver.class);
    }

    private static java.util.List<org.axonframework.messaging.annotation.HandlerEnhancerDefinition> enhancers(
            org.axonframework.messaging.annotation.HandlerEnhancerDefinition enhancer) {
        if (enhancer instanceof org.axonframework.messaging.annotation.MultiHandlerEnhancerDefinition multi) {
            return multi.getDelegates().stream().flatMap(e -> enhancers(e).stream()).toList();
        }
        return java.util.List.of(enhancer);
    }

    @Test
    void everyProcessorIsPooledAndPropagatesErrors() {
        Map<String, EventProcessor> processors = axon.eventProcessingConfiguration().eventProcessors();
        assertThat(processors).containsKeys(EventProcessingConfiguration.SAGA_PROCESSOR,
                EventProcessingConfiguration.SUMMARY_PROCESSOR, "inventory", "payments", "receipts");
        processors.values().forEach(p -> assertThat(p).isInstanceOf(PooledStreamingEventProcessor.class));
        processors.keySet().forEach(name -> assertThat(axon.eventProcessingConfiguration()
                .listenerInvocationErrorHandler(name).getClass().getSimpleName()).isEqualTo(
                        name.equals(EventProcessingConfiguration.SAGA_PROCESSOR)
                                ? "SagaPoisonHandler" : "PropagatingErrorHandler"));
        // poison events are parked per checkout in PostgreSQL, not retried for ever nor skipped
        EventProcessingConfiguration.DEAD_LETTERED.forEach(name -> assertThat(axon.eventProcessingConfiguration()
                .deadLetterQueue(name)).get().isInstanceOf(
                        org.axonframework.eventhandling.deadletter.jdbc.JdbcSequencedDeadLetterQueue.class));
    }

    @Test
    void deadlinesAndTokensAreDurableRowsInPostgres() {
        String id = api.startCheckout(CheckoutHttpIT.key(), HttpApi.checkoutBody("SKU-0011", 1, 100, "tok_unknown"))
                .json().get("checkoutId").asText();
        // an unknown payment outcome waits on a reconciliation deadline: a db-scheduler row, not a timer in memory
        await().atMost(Duration.ofSeconds(20)).until(() -> "reconciliation_pending".equals(
                api.get("/api/v1/checkouts/" + id).json().path("state").asText()));
        assertThat(count("SELECT count(*) FROM scheduled_tasks")).isPositive();
        assertThat(count("SELECT count(*) FROM tokenentry WHERE processorname = ?", EventProcessingConfiguration.SAGA_PROCESSOR))
                .isPositive();
    }

    /**
     * Aggregate loads do not ask the snapshot table (the product takes no snapshots; decision 59): a readable snapshot
     * row is there, and Axon's own engine would return it.
     */
    @Test
    void theEventStoreReadsNoSnapshotsAndStoresNone() {
        String probe = "wiring-snapshot-probe-" + java.util.UUID.randomUUID();
        jdbc.update("INSERT INTO snapshotevententry (aggregateidentifier, sequencenumber, type, eventidentifier, "
                + "metadata, payload, payloadrevision, payloadtype, timestamp) VALUES (?, 0, 'Checkout', ?, "
                + "convert_to('{}', 'UTF8'), convert_to('\"x\"', 'UTF8'), NULL, 'java.lang.String', ?)",
                probe, java.util.UUID.randomUUID().toString(), java.time.Instant.now().toString());
        try {
            assertThat(storageEngine.readSnapshot(probe)).isEmpty();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> storageEngine.storeSnapshot(
                            new org.axonframework.eventhandling.GenericDomainEventMessage<>("Checkout", probe, 1, "x")))
                    .isInstanceOf(UnsupportedOperationException.class);
        } finally {
            jdbc.update("DELETE FROM snapshotevententry WHERE aggregateidentifier = ?", probe);
        }
    }
}
