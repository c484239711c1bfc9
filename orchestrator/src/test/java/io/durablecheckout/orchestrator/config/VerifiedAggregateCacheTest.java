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
 * Decision 53: two nodes, each with its own aggregate cache, on one real PostgreSQL event store. Node B moves an
 * aggregate on that node A has cached; A's next load must decide on B's events, not on its cached copy (a decision
 * that appends nothing would otherwise never meet the sequence number check).
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
        cacheConnections = connections;
    }

    static ConnectionProvider cacheConnections;

    @AfterAll
    static void stop() throws Exception {
        events.shutDown();
        postgres.close();
    }

    @Test
    void aCopyCachedBeforeAnotherNodeAppendedIsNotUsed() {
        VerifiedAggregateCache cacheA = new VerifiedAggregateCache(cacheConnections, new EventSchema(), 10);
        EventSourcingRepository<Counter> nodeA = repository(cacheA);
        EventSourcingRepository<Counter> nodeB = repository(new VerifiedAggregateCache(cacheConnections,
                new EventSchema(), 10));

        inTransaction(() -> {
            try {
                return nodeA.newInstance(() -> new Counter("k-1"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(count(nodeA)).isZero();
        assertThat(cacheA.size()).isEqualTo(1);

        inTransaction(() -> {
            nodeB.load("k-1").execute(Counter::increment);
            return null;
        });

        assertThat(count(nodeA))
                .as("node A decides on node B's event").isEqualTo(1);
        inTransaction(() -> {
            nodeA.load("k-1").execute(Counter::increment); // and appends after it, without a collision
            return null;
        });
        assertThat(count(nodeA)).isEqualTo(2);
    }

    private static int count(EventSourcingRepository<Counter> node) {
        Integer count = inTransaction(() -> node.load("k-1").invoke(c -> c.count));
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
