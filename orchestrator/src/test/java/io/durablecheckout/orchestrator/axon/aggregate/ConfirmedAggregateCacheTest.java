package io.durablecheckout.orchestrator.axon.aggregate;

import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;
import io.durablecheckout.orchestrator.axon.eventstore.PostgresDuplicateKeyResolver;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.commandhandling.CommandResultMessage;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.commandhandling.SimpleCommandBus;
import org.axonframework.commandhandling.callbacks.FutureCallback;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.common.jdbc.UnitOfWorkAwareConnectionProviderWrapper;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.eventsourcing.EventSourcingRepository;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import org.axonframework.eventsourcing.eventstore.EmbeddedEventStore;
import org.axonframework.eventsourcing.eventstore.jdbc.EventSchema;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.messaging.annotation.ClasspathHandlerDefinition;
import org.axonframework.messaging.annotation.ClasspathHandlerEnhancerDefinition;
import org.axonframework.messaging.annotation.ClasspathParameterResolverFactory;
import org.axonframework.messaging.annotation.HandlerEnhancerDefinition;
import org.axonframework.messaging.annotation.MultiHandlerEnhancerDefinition;
import org.axonframework.messaging.annotation.ParameterResolverFactory;
import org.axonframework.messaging.annotation.HandlerDefinition;
import org.axonframework.messaging.annotation.MultiHandlerDefinition;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.modelling.command.AggregateAnnotationCommandHandler;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.AggregateLifecycle;
import org.axonframework.modelling.command.ConcurrencyException;
import org.axonframework.modelling.command.TargetAggregateIdentifier;
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
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Decision 78 on one real PostgreSQL event store: two nodes, each with its own {@link ConfirmedAggregateCache} and
 * {@link StaleCopyHandlerEnhancer}, commands through Axon's command bus and aggregate command handler as in the product. A node
 * deciding on the copy it cached reads no events; once the other node has appended, a decision on the old copy is
 * thrown away, whether it appends (the unique sequence key refuses it), appends nothing or refuses (the check asks the
 * store); and a node built without the check decides wrongly, which is what the check is for.
 */
class ConfirmedAggregateCacheTest {

    static EmbeddedPostgresServer postgres;
    static TransactionManager transactions;
    static EmbeddedEventStore events;
    static final AtomicInteger historyReads = new AtomicInteger();

    public record Create(@TargetAggregateIdentifier String id) {
    }

    public record Increment(@TargetAggregateIdentifier String id) {
    }

    /** Appends only if the count is {@code at}: on a stale copy it would append nothing. */
    public record IncrementIfAt(@TargetAggregateIdentifier String id, int at) {
    }

    /** Refuses unless the count is {@code at}. */
    public record RefuseUnlessAt(@TargetAggregateIdentifier String id, int at) {
    }

    public record Counted(String id, int to) {
    }

    public static class Counter {
        @AggregateIdentifier
        String id;
        int count;

        public Counter() {
        }

        @CommandHandler
        public Counter(Create c) {
            AggregateLifecycle.apply(new Counted(c.id(), 0));
        }

        @CommandHandler
        void handle(Increment c) {
            AggregateLifecycle.apply(new Counted(id, count + 1));
        }

        @CommandHandler
        void handle(IncrementIfAt c) {
            if (count == c.at()) {
                AggregateLifecycle.apply(new Counted(id, count + 1));
            }
        }

        @CommandHandler
        int handle(RefuseUnlessAt c) {
            if (count != c.at()) {
                throw new IllegalStateException("count is " + count + ", not " + c.at());
            }
            return count;
        }

        @EventSourcingHandler
        void on(Counted event) {
            id = event.id();
            count = event.to();
        }
    }

    static final ParameterResolverFactory PARAMETERS = ClasspathParameterResolverFactory.forClass(Counter.class);

    /** One node: its cache, its repository and its command bus. */
    record Node(ConfirmedAggregateCache cache, EventSourcingRepository<Counter> repository, SimpleCommandBus commands) {

        static Node start(boolean checked) {
            ConfirmedAggregateCache cache = new ConfirmedAggregateCache(10);
            HandlerEnhancerDefinition axons = ClasspathHandlerEnhancerDefinition.forClass(Counter.class);
            HandlerDefinition handlers = MultiHandlerDefinition.ordered(
                    List.of(ClasspathHandlerDefinition.forClass(Counter.class)), checked
                            ? MultiHandlerEnhancerDefinition.ordered(axons,
                            new StaleCopyHandlerEnhancer(Counter.class, () -> events, () -> cache))
                            : axons);
            EventSourcingRepository<Counter> repository = EventSourcingRepository.builder(Counter.class)
                    .eventStore(events).cache(cache).handlerDefinition(handlers).parameterResolverFactory(PARAMETERS)
                    .build();
            SimpleCommandBus bus = SimpleCommandBus.builder().transactionManager(transactions).build();
            AggregateAnnotationCommandHandler.<Counter>builder().aggregateType(Counter.class).repository(repository)
                    .handlerDefinition(handlers).parameterResolverFactory(PARAMETERS).build().subscribe(bus);
            return new Node(cache, repository, bus);
        }

        Object send(Object command) throws Throwable {
            FutureCallback<Object, Object> result = new FutureCallback<>();
            commands.dispatch(GenericCommandMessage.asCommandMessage(command), result);
            CommandResultMessage<?> answer = result.getResult();
            if (answer.isExceptional()) {
                throw answer.exceptionResult();
            }
            return answer.getPayload();
        }

        int read(String id) {
            DefaultUnitOfWork<CommandMessage<?>> uow = DefaultUnitOfWork.startAndGet(null);
            uow.attachTransaction(transactions);
            int count = repository.load(id).invoke(c -> c.count);
            uow.commit();
            return count;
        }
    }

    /** Counts the history reads, where a load that missed the cache goes. */
    static final class CountingEventStore extends EmbeddedEventStore {
        CountingEventStore(Builder builder) {
            super(builder);
        }

        @Override
        public DomainEventStream readEvents(String aggregateIdentifier) {
            historyReads.incrementAndGet();
            return super.readEvents(aggregateIdentifier);
        }

        @Override
        public DomainEventStream readEvents(String aggregateIdentifier, long firstSequenceNumber) {
            historyReads.incrementAndGet();
            return super.readEvents(aggregateIdentifier, firstSequenceNumber);
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
        try (var in = ConfirmedAggregateCacheTest.class.getResourceAsStream(
                "/db/migration/core/V1__axon_event_store_tokens_sagas.sql")) {
            new JdbcTemplate(dataSource).execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        transactions = new SpringTransactionManager(new DataSourceTransactionManager(dataSource));
        ConnectionProvider connections =
                new UnitOfWorkAwareConnectionProviderWrapper(new SpringDataSourceConnectionProvider(dataSource));
        Serializer serializer = JacksonSerializer.defaultSerializer();
        events = new CountingEventStore(EmbeddedEventStore.builder().storageEngine(JdbcEventStorageEngine.builder()
                .connectionProvider(connections).transactionManager(transactions)
                .eventSerializer(serializer).snapshotSerializer(serializer)
                .persistenceExceptionResolver(new PostgresDuplicateKeyResolver())
                .schema(new EventSchema()).dataType(byte[].class).build()));
    }

    @AfterAll
    static void stop() throws Exception {
        events.shutDown();
        postgres.close();
    }

    private static String id() {
        return "k-" + UUID.randomUUID();
    }

    @Test
    void aNodeDecidingOnTheCopyItCachedReadsNoHistory() throws Throwable {
        Node a = Node.start(true);
        String id = id();
        a.send(new Create(id));
        int before = historyReads.get();
        a.send(new Increment(id));
        a.send(new Increment(id));
        a.send(new IncrementIfAt(id, 5)); // appends nothing on a copy that is current: confirmed, not re-read
        assertThat(a.send(new RefuseUnlessAt(id, 2))).isEqualTo(2);
        assertThat(historyReads.get() - before).as("history reads").isZero();
        assertThat(Node.start(true).read(id)).as("what the store holds").isEqualTo(2);
    }

    @Test
    void anAppendFromACopyTheOtherNodeMovedPastIsRefusedByTheSequenceKey() throws Throwable {
        Node a = Node.start(true);
        Node b = Node.start(true);
        String id = id();
        a.send(new Create(id));
        b.send(new Increment(id));
        assertThatThrownBy(() -> a.send(new Increment(id))).isInstanceOf(ConcurrencyException.class);
        assertThat(a.cache().containsKey(id)).as("the stale copy is dropped").isFalse();
        a.send(new Increment(id)); // the gateway's retry: decided again on the store's events
        assertThat(Node.start(true).read(id)).isEqualTo(2);
    }

    @Test
    void aDecisionAppendingNothingOnAStaleCopyIsThrownAwayAndDecidedAgain() throws Throwable {
        Node a = Node.start(true);
        Node b = Node.start(true);
        String id = id();
        a.send(new Create(id));
        b.send(new Increment(id)); // the store is at count 1; a's copy says 0
        assertThatThrownBy(() -> a.send(new IncrementIfAt(id, 1))).isInstanceOf(ConcurrencyException.class)
                .hasMessageContaining("cached copy at 0");
        a.send(new IncrementIfAt(id, 1));
        assertThat(Node.start(true).read(id)).isEqualTo(2);
    }

    /** The hazard the check exists for, shown on a node without it: the stale copy decides "nothing to do". */
    @Test
    void withoutTheCheckAStaleCopyDecidesWrongly() throws Throwable {
        Node unchecked = Node.start(false);
        Node b = Node.start(true);
        String id = id();
        unchecked.send(new Create(id));
        b.send(new Increment(id));
        unchecked.send(new IncrementIfAt(id, 1)); // accepted, and nothing appended
        assertThat(Node.start(true).read(id)).as("the increment the stale copy skipped").isEqualTo(1);
    }

    @Test
    void aRefusalOnAStaleCopyIsThrownAwayAndARealOneStands() throws Throwable {
        Node a = Node.start(true);
        Node b = Node.start(true);
        String id = id();
        a.send(new Create(id));
        b.send(new Increment(id));
        assertThatThrownBy(() -> a.send(new RefuseUnlessAt(id, 1))).isInstanceOf(ConcurrencyException.class);
        assertThat(a.send(new RefuseUnlessAt(id, 1))).isEqualTo(1);
        assertThatThrownBy(() -> a.send(new RefuseUnlessAt(id, 7))).isInstanceOf(IllegalStateException.class);
    }

    /** The saga's path: a command's unit of work commits nested in the processor's batch, and the batch rolls back. */
    @Test
    void aCopyChangedByACommandWhoseBatchRolledBackIsNotHandedOut() throws Throwable {
        Node a = Node.start(true);
        String id = id();
        a.send(new Create(id));
        DefaultUnitOfWork<?> batch = DefaultUnitOfWork.startAndGet(null);
        batch.attachTransaction(transactions);
        a.send(new Increment(id));
        batch.rollback(new IllegalStateException("the batch's token could not be stored"));
        assertThat(a.cache().containsKey(id)).isFalse();
        assertThat(a.send(new RefuseUnlessAt(id, 0))).as("the increment went with its batch").isEqualTo(0);
    }
}
