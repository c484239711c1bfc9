package io.durablecheckout.orchestrator.axon.eventstore;

import io.durablecheckout.orchestrator.config.ScratchDatabase;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.common.jdbc.UnitOfWorkAwareConnectionProviderWrapper;
import org.axonframework.common.transaction.NoTransactionManager;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.jdbc.EventSchema;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.serialization.json.JacksonSerializer;
import org.axonframework.spring.jdbc.SpringDataSourceConnectionProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The processors' open-ended fetch reads what Axon's windowed fetch with its extended gap check reads: the same
 * events, the same tokens, through gaps of uncommitted transactions and a jump over a gap larger than a batch.
 */
class EventsOnlyStorageEngineTest {

    static ScratchDatabase database;
    static JdbcTemplate jdbc;
    static JdbcEventStorageEngine product;
    static JdbcEventStorageEngine axons;

    @BeforeAll
    static void database() throws Exception {
        database = ScratchDatabase.start("event-fetch", "/db/migration/core/V1__axon_event_store_tokens_sagas.sql",
                "/db/migration/core/V192__drop_indexes_nothing_reads.sql");
        jdbc = new JdbcTemplate(database.dataSource());
        ConnectionProvider connections =
                new UnitOfWorkAwareConnectionProviderWrapper(new SpringDataSourceConnectionProvider(database.dataSource()));
        product = new EventsOnlyStorageEngine(builder(connections)
                .readEventDataWithoutGaps(EventsOnlyStorageEngine::readAfter)
                .readEventDataWithGaps(EventsOnlyStorageEngine::readAfterAndGaps)
                .extendedGapCheckEnabled(false), java.time.Duration.ZERO);
        axons = builder(connections).build();
    }

    private static JdbcEventStorageEngine.Builder builder(ConnectionProvider connections) {
        return JdbcEventStorageEngine.builder().connectionProvider(connections)
                .transactionManager(NoTransactionManager.INSTANCE)
                .eventSerializer(JacksonSerializer.defaultSerializer())
                .snapshotSerializer(JacksonSerializer.defaultSerializer())
                .schema(new EventSchema()).dataType(byte[].class).batchSize(100);
    }

    @AfterAll
    static void stop() throws Exception {
        database.close();
    }

    @Test
    void theSameEventsAndTokensThroughGapsAndAJumpLargerThanABatch() {
        for (long i = 1; i <= 5; i++) {
            append(i);
        }
        assertThat(indexes(product, null)).containsExactly(1L, 2L, 3L, 4L, 5L).isEqualTo(indexes(axons, null));
        TrackingToken five = lastToken(product, null);
        assertThat(five).isEqualTo(lastToken(axons, null));

        append(700); // far beyond one batch of 100; 6 to 699: transactions that have not committed yet
        assertThat(indexes(product, five)).containsExactly(700L).isEqualTo(indexes(axons, five));
        TrackingToken after = lastToken(product, five);
        assertThat(after).isEqualTo(lastToken(axons, five));
        assertThat(((GapAwareTrackingToken) after).getGaps()).contains(6L, 7L, 699L);

        append(6); // a gap's transaction commits late: it is still delivered
        append(1500); // and the next jump, now read with the token's gaps
        assertThat(indexes(product, after)).containsExactly(6L, 1500L).isEqualTo(indexes(axons, after));
        TrackingToken caughtUp = lastToken(product, after);
        assertThat(caughtUp).isEqualTo(lastToken(axons, after));

        // caught up: nothing more, from either
        assertThat(indexes(product, caughtUp)).isEmpty();
        assertThat(indexes(axons, caughtUp)).isEmpty();
    }

    /**
     * V192 dropped the unique index on the event identifier: an event with no aggregate (an activity's result) appended
     * a second time must still collide, on the (aggregate identifier, sequence number) key, because the engine stores
     * it as its own stream at sequence 0 under its identifier.
     */
    @Test
    void anEventWithNoAggregateAppendedTwiceStillCollidesWithoutTheIdentifierIndex() {
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_indexes WHERE tablename = 'domainevententry'"
                + " AND indexdef LIKE '%(eventidentifier)%'", Integer.class)).isZero();
        // past the indexes the other tests insert by hand
        jdbc.queryForObject("SELECT setval(pg_get_serial_sequence('domainevententry', 'globalindex'), 1000000)", Long.class);
        EventMessage<String> result =
                new GenericEventMessage<>("result-appended-twice", "reserved", Map.of(), Instant.now());
        product.appendEvents(result);
        assertThatThrownBy(() -> product.appendEvents(result))
                .matches(e -> new PostgresDuplicateKeyResolver().isDuplicateKeyViolation((Exception) e),
                        "a unique violation (SQLSTATE 23505)")
                .hasStackTraceContaining("domainevententry_aggregateidentifier_sequencenumber_key");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM domainevententry WHERE eventidentifier = ?",
                Integer.class, "result-appended-twice")).isEqualTo(1);
    }

    /**
     * The read with gaps as the server runs it once the driver has prepared it: a generic plan, the token and gaps
     * unknown. It must read by the index (a few pages), not walk the store: {@code > ? OR IN (…)} filtered all 20,000
     * rows here, and a store's worth in production, on every fetch that carried a gap.
     */
    @Test
    void theReadWithGapsStaysOnTheIndexWhateverTheStoreHolds() throws Exception {
        jdbc.update("INSERT INTO domainevententry (globalindex, aggregateidentifier, sequencenumber, type,"
                + " eventidentifier, metadata, payload, payloadtype, timestamp)"
                + " SELECT 100000 + i, 'bulk-' || i, 0, 'Checkout', 'bulk-evt-' || i, '{}'::bytea, '{}'::bytea, 'x', ?"
                + " FROM generate_series(1, 20000) i", java.time.Instant.now().toString());
        jdbc.execute("ANALYZE domainevententry");
        try (var connection = database.dataSource().getConnection()) {
            connection.createStatement().execute("SET plan_cache_mode = force_generic_plan");
            var schema = new EventSchema();
            connection.createStatement().execute("PREPARE gaps(bigint, int, bigint[], int) AS "
                    + readAfterAndGapsText(schema).replaceFirst("\\?", "\\$1").replaceFirst("\\?", "\\$2")
                    .replaceFirst("\\?", "\\$3").replaceFirst("\\?", "\\$4"));
            List<String> plan = new ArrayList<>();
            try (var rs = connection.createStatement().executeQuery(
                    "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE gaps(119990, 12, '{110000,115000}', 12)")) {
                while (rs.next()) {
                    plan.add(rs.getString(1));
                }
            }
            String text = String.join("\n", plan);
            assertThat(text).as(text).doesNotContain("Rows Removed by Filter").doesNotContain("Seq Scan");
            int pages = plan.stream().filter(l -> l.contains("Buffers: shared hit=")).findFirst()
                    .map(l -> Integer.parseInt(l.replaceAll(".*shared hit=(\\d+).*", "$1"))).orElse(0);
            assertThat(pages).as(text).isLessThan(60); // the full walk read about 100 pages of the index and heap
        } finally {
            jdbc.update("DELETE FROM domainevententry WHERE globalindex > 100000"); // the other test reads from the start
        }
    }

    /** The SQL {@link EventsOnlyStorageEngine#readAfterAndGaps} prepares, with its four placeholders. */
    private static String readAfterAndGapsText(EventSchema schema) throws SQLException {
        String[] captured = new String[1];
        java.sql.Connection recorder = (java.sql.Connection) java.lang.reflect.Proxy.newProxyInstance(
                EventsOnlyStorageEngineTest.class.getClassLoader(), new Class<?>[] {java.sql.Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement")) {
                        captured[0] = (String) args[0];
                        return java.lang.reflect.Proxy.newProxyInstance(EventsOnlyStorageEngineTest.class.getClassLoader(),
                                new Class<?>[] {PreparedStatement.class}, (p, m, a) -> null);
                    }
                    if (method.getName().equals("createArrayOf")) {
                        return null;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        EventsOnlyStorageEngine.readAfterAndGaps(recorder, schema, 0L, 1, List.of(1L));
        return captured[0];
    }

    private static void append(long globalIndex) {
        jdbc.update("INSERT INTO domainevententry (globalindex, aggregateidentifier, sequencenumber, type,"
                + " eventidentifier, metadata, payload, payloadtype, timestamp) VALUES (?, ?, 0, 'Checkout', ?, ?, ?, 'x', ?)",
                globalIndex, "agg-" + globalIndex, "evt-" + globalIndex, "{}".getBytes(), "{}".getBytes(),
                java.time.Instant.now().toString());
    }

    private static List<Long> indexes(JdbcEventStorageEngine engine, TrackingToken from) {
        List<Long> indexes = new ArrayList<>();
        try (var events = engine.readEvents(from, false)) {
            // the event's own index (a late gap's event leaves the token's index where it was)
            events.forEach(e -> indexes.add(Long.parseLong(((org.axonframework.eventhandling.DomainEventMessage<?>) e)
                    .getAggregateIdentifier().substring("agg-".length()))));
        }
        return indexes;
    }

    private static TrackingToken lastToken(JdbcEventStorageEngine engine, TrackingToken from) {
        try (var events = engine.readEvents(from, false)) {
            return events.map(e -> (TrackingToken) e.trackingToken())
                    .reduce((a, b) -> b).orElse(from);
        }
    }
}
