package io.durablecheckout.orchestrator.axon.eventstore;

import io.durablecheckout.orchestrator.config.ScratchDatabase;
import org.axonframework.common.jdbc.UnitOfWorkAwareConnectionProviderWrapper;
import org.axonframework.common.stream.BlockingStream;
import org.axonframework.common.transaction.NoTransactionManager;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.eventsourcing.eventstore.EmbeddedEventStore;
import org.axonframework.eventsourcing.eventstore.jdbc.EventSchema;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.serialization.json.JacksonSerializer;
import org.axonframework.spring.jdbc.SpringDataSourceConnectionProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The wake-up a pooled processor needs to leave its 500 ms re-poll (decision 13): a committed local append calls the
 * open streams' callbacks, a rolled-back one does not; the tick wakes them for other nodes' appends; a closed or
 * replaced callback is called no more. On a real PostgreSQL event store.
 */
class WakeUpEventSourceTest {

    static ScratchDatabase database;
    static EmbeddedEventStore store;
    WakeUpEventSource source;

    @BeforeAll
    static void database() throws Exception {
        database = ScratchDatabase.start("wake-up", "/db/migration/core/V1__axon_event_store_tokens_sagas.sql");
        store = EmbeddedEventStore.builder().storageEngine(JdbcEventStorageEngine.builder()
                .connectionProvider(new UnitOfWorkAwareConnectionProviderWrapper(
                        new SpringDataSourceConnectionProvider(database.dataSource())))
                .transactionManager(NoTransactionManager.INSTANCE)
                .eventSerializer(JacksonSerializer.defaultSerializer())
                .snapshotSerializer(JacksonSerializer.defaultSerializer())
                .schema(new EventSchema()).dataType(byte[].class).build()).build();
    }

    @AfterEach
    void closeSource() {
        if (source != null) {
            source.close();
        }
    }

    @AfterAll
    static void stop() throws Exception {
        store.shutDown();
        database.close();
    }

    @Test
    void aCommittedLocalAppendWakesTheStreamsARolledBackOneDoesNot() {
        source = new WakeUpEventSource(store, Duration.ofHours(1), Duration.ofMillis(10), true);
        AtomicInteger wakeUps = new AtomicInteger();
        BlockingStream<TrackedEventMessage<?>> stream = source.openStream(null);
        assertThat(stream.setOnAvailableCallback(wakeUps::incrementAndGet)).as("the callback is supported").isTrue();

        append("rolled-back", false);
        assertThat(wakeUps).as("a rollback appended nothing: no wake-up").hasValue(0);

        append("committed", true);
        assertThat(wakeUps).as("called after the commit, in the committing thread").hasValue(1);

        AtomicInteger replaced = new AtomicInteger();
        stream.setOnAvailableCallback(replaced::incrementAndGet);
        append("after-replace", true);
        assertThat(wakeUps).as("a replaced callback is called no more").hasValue(1);
        assertThat(replaced).hasValue(1);

        stream.close();
        append("after-close", true);
        assertThat(replaced).as("a closed stream's callback is called no more").hasValue(1);
    }

    @Test
    void withoutLocalWakeUpsOnlyTheTickWakesTheStreams() {
        source = new WakeUpEventSource(store, Duration.ofMillis(50), Duration.ofMillis(10), false);
        AtomicInteger wakeUps = new AtomicInteger();
        source.openStream(null).setOnAvailableCallback(wakeUps::incrementAndGet);
        await().atMost(Duration.ofSeconds(10)).until(() -> wakeUps.get() >= 3);

        WakeUpEventSource quiet = new WakeUpEventSource(store, Duration.ofHours(1), Duration.ofMillis(10), false);
        try {
            AtomicInteger none = new AtomicInteger();
            quiet.openStream(null).setOnAvailableCallback(none::incrementAndGet);
            append("no-local-wake-up", true);
            assertThat(none).as("a local commit does not wake a source built without it").hasValue(0);
        } finally {
            quiet.close();
        }
    }

    @Test
    void aStreamWokenUpSeesTheNewEvent() throws Exception {
        source = new WakeUpEventSource(store, Duration.ofHours(1), Duration.ofMillis(200), true);
        BlockingStream<TrackedEventMessage<?>> stream = source.openStream(store.createHeadToken());
        AtomicInteger wakeUps = new AtomicInteger();
        stream.setOnAvailableCallback(wakeUps::incrementAndGet);
        append("seen", true);
        assertThat(wakeUps).hasValue(1);
        // woken: it waits for the store's producer to fetch the new event instead of answering "nothing yet"
        assertThat(stream.hasNextAvailable()).isTrue();
        assertThat(stream.nextAvailable().getPayload()).isEqualTo("seen");
        stream.close();
    }

    private static void append(String aggregateId, boolean commit) {
        DefaultUnitOfWork<?> uow = DefaultUnitOfWork.startAndGet(null);
        store.publish(new GenericDomainEventMessage<>("Test", aggregateId, 0, aggregateId));
        if (commit) {
            uow.commit();
        } else {
            uow.rollback();
        }
    }
}
