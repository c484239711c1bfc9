package io.durablecheckout.orchestrator.axon.eventstore;

import io.durablecheckout.orchestrator.config.ScratchDatabase;
import org.axonframework.common.jdbc.UnitOfWorkAwareConnectionProviderWrapper;
import org.axonframework.common.transaction.NoTransactionManager;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventsourcing.eventstore.jdbc.EventSchema;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.serialization.json.JacksonSerializer;
import org.axonframework.spring.jdbc.SpringDataSourceConnectionProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import java.time.Duration;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decision 79: after a fetch that found events but did not fill a batch, the same thread's next fetch waits out the
 * interval (the events of several commits then arrive together); after an empty fetch, or a full one (catching up),
 * the next one goes at once. The bounds are one-sided: a fetch never starts early, and the unpaced ones are measured
 * against an interval far longer than any statement.
 */
class EventFetchPacingTest {

    static final Duration INTERVAL = Duration.ofSeconds(2);

    static ScratchDatabase database;
    static JdbcTemplate jdbc;
    static EventsOnlyStorageEngine engine;

    @BeforeAll
    static void database() throws Exception {
        database = ScratchDatabase.start("event-pacing", "/db/migration/core/V1__axon_event_store_tokens_sagas.sql");
        jdbc = new JdbcTemplate(database.dataSource());
        engine = new EventsOnlyStorageEngine(JdbcEventStorageEngine.builder()
                .connectionProvider(new UnitOfWorkAwareConnectionProviderWrapper(
                        new SpringDataSourceConnectionProvider(database.dataSource())))
                .transactionManager(EventsOnlyStorageEngine.readsWithoutTransaction(NoTransactionManager.INSTANCE))
                .eventSerializer(JacksonSerializer.defaultSerializer())
                .snapshotSerializer(JacksonSerializer.defaultSerializer())
                .schema(new EventSchema()).dataType(byte[].class).batchSize(3)
                .readEventDataWithoutGaps(EventsOnlyStorageEngine::readAfter)
                .readEventDataWithGaps(EventsOnlyStorageEngine::readAfterAndGaps)
                .extendedGapCheckEnabled(false), INTERVAL);
    }

    @AfterAll
    static void stop() throws Exception {
        database.close();
    }

    @Test
    void aFetchThatFoundEventsPacesTheNextOneAnEmptyOrAFullOneDoesNot() {
        append(1);
        assertThat(fetchMillis(0, 1)).as("the first after a quiet spell: at once").isLessThan(INTERVAL.toMillis() / 2);
        // found one event, short of the batch of 3: the next waits out the interval, and finds nothing
        assertThat(fetchMillis(1, 0)).isGreaterThanOrEqualTo(INTERVAL.toMillis() - 50);
        // that one was empty: the next goes at once, and finds a full batch (catching up)
        append(2);
        append(3);
        append(4);
        assertThat(fetchMillis(1, 3)).isLessThan(INTERVAL.toMillis() / 2);
        // after a full batch, at once again
        assertThat(fetchMillis(4, 0)).isLessThan(INTERVAL.toMillis() / 2);
    }

    private static long fetchMillis(long after, int expected) {
        long start = System.nanoTime();
        int found = engine.fetchTrackedEvents(GapAwareTrackingToken.newInstance(after, Set.of()), 3).size();
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(found).isEqualTo(expected);
        return millis;
    }

    private static void append(long globalIndex) {
        jdbc.update("INSERT INTO domainevententry (globalindex, aggregateidentifier, sequencenumber, type,"
                + " eventidentifier, metadata, payload, payloadtype, timestamp) VALUES (?, ?, 0, 'Checkout', ?, ?, ?, 'x', ?)",
                globalIndex, "agg-" + globalIndex, "evt-" + globalIndex, "{}".getBytes(), "{}".getBytes(),
                java.time.Instant.now().toString());
    }
}
