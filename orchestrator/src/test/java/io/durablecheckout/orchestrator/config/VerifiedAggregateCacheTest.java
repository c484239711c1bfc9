package io.durablecheckout.orchestrator.config;

import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.common.jdbc.UnitOfWorkAwareConnectionProviderWrapper;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.eventsourcing.EventSourcingRepository;
import org.axonframework.eventsourcing.eventstore.EmbeddedEventStore;
import org.axonframework.eventsourcing.eventstore.jdbc.EventSchema;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.AggregateLifecycle;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.json.JacksonSerializer;
import org.axonframework.spring.jdbc.SpringDataSourceConnectionProvider;
import org.axonframework.spring.messaging.unitofwork.SpringTransactionManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decision 60, on one real PostgreSQL event store: two nodes, each with its own aggregate cache. Node B moves an
 * aggregate on that node A has cached; A's next load must decide on B's events, not on its cached copy (a decision
 * that appends nothing would otherwise never meet the sequence number check). A copy changed by a command whose
 * enclosing batch rolled back is not used either, and an aggregate the cache is told not to keep is not kept.
 */
class VerifiedAggregateCacheTest {

    static EmbeddedPostgresServer postgres;
    static TransactionManager transactions;
    static EmbeddedEventStore events;

    public record Counted(String id, int to) {
    }

    public static class Counter {
        @AggregateIdentifier
        String id;
        int count;

        public Counter() {
        }

        Counter(String id) {
            AggregateLifecycle.apply(new Counted(id, 0));
        }

        void increment() {
            AggregateLifecycle.apply(new Counted(id, count + 1));
        }

        boolean atRest() {
            return count >= 100;
        }

        @EventSourcingHandler
        void on(Counted event) {
            id = event.id();
            count = event.to();
        }
    }

    @BeforeAll
    static void database() throws Exception {
        Path target = Path.of("target");
        Files.createDirectories(target);
        postgres = EmbeddedPostgresServer.start(Files.createTempDirectory(target.toAbsolutePath(), "agg-cache-pg-"), 0);
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(postgres.jdbcUrl());
        dataSource.setUser("postgres");
        try (var in = VerifiedAggregateCacheTest.class.getResourceAsStream(
                "/db/migration/core/V1__axon_event_store_tokens_sagas.sql")) {
            new JdbcTemplate(dataSource).execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        transactions = new SpringTransactionManager(new DataSourceTransactionManager(dataSource));
        ConnectionProvider connections =
                new UnitOfWorkAwareConnectionProviderWrapper(new SpringDataSourceConnectionProvider(dataSource));
        Serializer serializer = JacksonSerializer.defaultSerializer();
        events = EmbeddedEventStore.builder().storageEngine(JdbcEventStorageEngine.builder()
                .connectionProvider(connections).transactionManager(transactions)
                .eventSerializer(serializer).snapshotSerializer(serializer)
                .persistenceExceptionResolver(new PostgresDuplicateKeyResolver())
                .schema(new EventSchema()).dataType(byte[].class).build()).build();
    }

    @AfterAll
    static void stop() throws Exception {
        events.shutDown();
        postgres.close();
    }

    @Test
    void aCopyCachedBeforeAnotherNodeAppendedIsNotUsed() {
        VerifiedAggregateCache cacheA = cache();
        EventSourcingRepository<Counter> nodeA = repository(cacheA);
        EventSourcingRepository<Counter> nodeB = repository(cache());

        create(nodeA, "k-1");
        assertThat(count(nodeA, "k-1")).isZero();
        assertThat(cacheA.size()).isEqualTo(1);

        inTransaction(() -> {
            nodeB.load("k-1").execute(Counter::increment);
            return null;
        });

        assertThat(count(nodeA, "k-1"))
                .as("node A decides on node B's event").isEqualTo(1);
        inTransaction(() -> {
            nodeA.load("k-1").execute(Counter::increment); // and appends after it, without a collision
            return null;
        });
        assertThat(count(nodeA, "k-1")).isEqualTo(2);
    }

    /** The saga's path: a command's unit of work commits nested in the processor's batch, and the batch rolls back. */
    @Test
    void aCopyChangedByACommandWhoseBatchRolledBackIsNotUsed() {
        VerifiedAggregateCache cache = cache();
        EventSourcingRepository<Counter> node = repository(cache);
        create(node, "k-2");
        assertThat(count(node, "k-2")).isZero();

        DefaultUnitOfWork<?> batch = DefaultUnitOfWork.startAndGet(null);
        batch.attachTransaction(transactions);
        DefaultUnitOfWork<?> command = DefaultUnitOfWork.startAndGet(null);
        command.execute(() -> node.load("k-2").execute(Counter::increment));
        batch.rollback(new IllegalStateException("the batch's token could not be stored"));

        assertThat(count(node, "k-2")).as("the increment was rolled back with its batch").isZero();
    }

    @Test
    void anAggregateAtRestIsNotKept() {
        VerifiedAggregateCache cache = cache();
        EventSourcingRepository<Counter> node = repository(cache);
        create(node, "k-3");
        assertThat(cache.containsKey("k-3")).isTrue();
        inTransaction(() -> {
            node.load("k-3").execute(c -> AggregateLifecycle.apply(new Counted(c.id, 100)));
            return null;
        });
        assertThat(cache.containsKey("k-3")).as("at rest: dropped, not cached").isFalse();
        assertThat(count(node, "k-3")).as("read from its history").isEqualTo(100);
    }

    private static VerifiedAggregateCache cache() {
        return new VerifiedAggregateCache(events::lastSequenceNumberFor,
                root -> !(root instanceof Counter c) || !c.atRest(), 10);
    }

    private static void create(EventSourcingRepository<Counter> node, String id) {
        inTransaction(() -> {
            try {
                return node.newInstance(() -> new Counter(id));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static int count(EventSourcingRepository<Counter> node, String id) {
        Integer count = inTransaction(() -> node.load(id).invoke(c -> c.count));
        return count;
    }

    private static EventSourcingRepository<Counter> repository(VerifiedAggregateCache cache) {
        return EventSourcingRepository.builder(Counter.class).eventStore(events).cache(cache).build();
    }

    private static <R> R inTransaction(Supplier<R> work) {
        DefaultUnitOfWork<?> unitOfWork = DefaultUnitOfWork.startAndGet(null);
        unitOfWork.attachTransaction(transactions);
        try {
            R result = work.get();
            unitOfWork.commit();
            return result;
        } catch (RuntimeException e) {
            unitOfWork.rollback(e);
            throw e;
        }
    }
}
