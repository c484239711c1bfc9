package io.durablecheckout.orchestrator.config;

import io.durablecheckout.orchestrator.axon.deadline.DeadlineLagInterceptor;
import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.Task;
import io.durablecheckout.orchestrator.axon.aggregate.CachedCommandTargetResolver;
import io.durablecheckout.orchestrator.axon.aggregate.ConfirmedAggregateCache;
import io.durablecheckout.orchestrator.axon.aggregate.ConstructorAggregateFactory;
import io.durablecheckout.orchestrator.axon.aggregate.StaleCopyHandlerEnhancer;
import io.durablecheckout.orchestrator.axon.deadline.LeaseDeadlineManager;
import io.durablecheckout.orchestrator.axon.deadline.PromptRetryTask;
import io.durablecheckout.orchestrator.axon.eventstore.EventsOnlyStorageEngine;
import io.durablecheckout.orchestrator.axon.eventstore.PostgresDuplicateKeyResolver;
import io.durablecheckout.orchestrator.axon.saga.ChangedOnlySagaStore;
import io.durablecheckout.orchestrator.axon.saga.ClaimWatchingTokenStore;
import io.durablecheckout.orchestrator.checkout.Checkout;
import io.durablecheckout.orchestrator.checkout.Deadlines;
import io.durablecheckout.orchestrator.checkout.WorkflowPolicy;
import io.durablecheckout.orchestrator.cluster.ClusterProperties;
import io.durablecheckout.orchestrator.replay.RecordedInputs;
import io.durablecheckout.orchestrator.serialization.AxonJson;
import io.durablecheckout.orchestrator.serialization.EventUpcasters;
import io.micrometer.core.instrument.MeterRegistry;
import org.axonframework.common.caching.Cache;
import org.axonframework.common.caching.NoCache;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.common.jdbc.PersistenceExceptionResolver;
import org.axonframework.common.jdbc.UnitOfWorkAwareConnectionProviderWrapper;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.config.ConfigurationScopeAwareProvider;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.deadline.DeadlineManagerSpanFactory;
import org.axonframework.deadline.dbscheduler.DbSchedulerBinaryDeadlineDetails;
import org.axonframework.deadline.dbscheduler.DbSchedulerDeadlineManager;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.eventhandling.tokenstore.jdbc.JdbcTokenStore;
import org.axonframework.eventhandling.tokenstore.jdbc.TokenSchema;
import org.axonframework.eventsourcing.AggregateFactory;
import org.axonframework.eventsourcing.eventstore.EventStorageEngine;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.eventsourcing.eventstore.jdbc.EventSchema;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcSQLErrorCodesResolver;
import org.axonframework.messaging.annotation.HandlerEnhancerDefinition;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.messaging.interceptors.CorrelationDataInterceptor;
import org.axonframework.modelling.command.CommandTargetResolver;
import org.axonframework.modelling.saga.repository.SagaStore;
import org.axonframework.modelling.saga.repository.jdbc.JdbcSagaStore;
import org.axonframework.modelling.saga.repository.jdbc.PostgresSagaSqlSchema;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.json.JacksonSerializer;
import org.axonframework.spring.jdbc.SpringDataSourceConnectionProvider;
import org.axonframework.spring.messaging.unitofwork.SpringTransactionManager;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.transaction.PlatformTransactionManager;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Every durable Axon component declared explicitly, so nothing silently falls back to an in-memory or
 * non-transactional default (see docs/decisions.md, "Explicit Axon wiring"). {@link WiringVerifier} fails start-up
 * if any of them is not the real one.
 */
@Configuration(proxyBeanMethods = false)
public class AxonInfrastructureConfiguration {

    @Bean
    @Primary
    public Serializer serializer() {
        return JacksonSerializer.builder().objectMapper(AxonJson.objectMapper()).build();
    }

    @Bean
    @Qualifier("messageSerializer")
    public Serializer messageSerializer(Serializer serializer) {
        return serializer;
    }

    /** The strict event serializer ({@link AxonJson}), for callers outside the product (the benchmark harness). */
    public static Serializer strictEventSerializer() {
        return AxonJson.strictEventSerializer();
    }

    @Bean
    @Qualifier("eventSerializer")
    public Serializer eventSerializer() {
        return strictEventSerializer();
    }

    /** Axon's Spring lookup uses a bean named {@code <aggregate>AggregateFactory} when there is one (why: the class). */
    @Bean
    public AggregateFactory<Checkout> checkoutAggregateFactory() {
        return new ConstructorAggregateFactory<>(Checkout.class);
    }

    /**
     * The Checkout's cache (decisions.md §78): a command or deadline on a checkout this node decided last reads no
     * events. {@code checkout.aggregate-cache.max-entries} bounds it (0: no cache).
     */
    @Bean
    public Cache checkoutCache(@Value("${checkout.aggregate-cache.max-entries:2048}") int maxEntries) {
        return maxEntries > 0 ? new ConfirmedAggregateCache(maxEntries) : NoCache.INSTANCE;
    }

    /** Confirms, against the store, a decision on a cached copy that no unique key would catch (§78). */
    @Bean
    public HandlerEnhancerDefinition staleCopyCheck(ObjectProvider<EventStore> eventStore,
                                                    @Qualifier("checkoutCache") ObjectProvider<Cache> checkoutCache) {
        return new StaleCopyHandlerEnhancer(Checkout.class, eventStore::getObject, checkoutCache::getObject);
    }

    /** Axon's annotation resolver, with the annotations looked up once per command class (decisions.md §60). */
    @Bean
    public CommandTargetResolver checkoutCommandTargetResolver() {
        return new CachedCommandTargetResolver();
    }

    /** Declared by hand: on Boot 4, Axon's auto-configuration runs before Boot's JDBC transaction manager exists. */
    @Bean
    public TransactionManager axonTransactionManager(PlatformTransactionManager platformTransactionManager) {
        return new SpringTransactionManager(platformTransactionManager);
    }

    @Bean
    public ConnectionProvider axonConnectionProvider(DataSource dataSource) {
        return new UnitOfWorkAwareConnectionProviderWrapper(new SpringDataSourceConnectionProvider(dataSource));
    }

    @Bean
    public PersistenceExceptionResolver persistenceExceptionResolver() {
        return new PostgresDuplicateKeyResolver(); // Axon's JDBC resolver misses PostgreSQL's 23505
    }

    /** Events in PostgreSQL with bytea payloads (the JPA engine would use large objects). Not with Axon Server. */
    @Bean
    @ConditionalOnProperty(name = "axon.axonserver.enabled", havingValue = "false", matchIfMissing = true)
    public EventStorageEngine eventStorageEngine(ConnectionProvider connectionProvider,
                                                 TransactionManager transactionManager,
                                                 @Qualifier("eventSerializer") Serializer eventSerializer,
                                                 PersistenceExceptionResolver persistenceExceptionResolver,
                                                 EventProcessingConfiguration.ProcessingProperties processing) {
        return new EventsOnlyStorageEngine(JdbcEventStorageEngine.builder()
                .connectionProvider(connectionProvider)
                .transactionManager(EventsOnlyStorageEngine.readsWithoutTransaction(transactionManager))
                .eventSerializer(eventSerializer)
                .snapshotSerializer(eventSerializer)
                .upcasterChain(EventUpcasters.chain())
                .persistenceExceptionResolver(persistenceExceptionResolver)
                .schema(new EventSchema())
                // one statement per fetch, none more when it finds nothing (EventsOnlyStorageEngine.readAfter)
                .readEventDataWithoutGaps(EventsOnlyStorageEngine::readAfter)
                .readEventDataWithGaps(EventsOnlyStorageEngine::readAfterAndGaps)
                .extendedGapCheckEnabled(false)
                .dataType(byte[].class), processing.fetchInterval());
    }

    /**
     * The JDBC token store; a change of this node's claims on the saga's segments empties the saga store's cache
     * (decisions.md §79).
     */
    @Bean
    public TokenStore tokenStore(ConnectionProvider connectionProvider, Serializer serializer, ClusterProperties cluster,
                                 ObjectProvider<SagaStore<Object>> sagaStore) {
        TokenStore jdbc = JdbcTokenStore.builder()
                .connectionProvider(connectionProvider)
                .serializer(serializer)
                .schema(new TokenSchema())
                .contentType(byte[].class)
                .claimTimeout(cluster.claimTimeout())
                // who owns a segment claim; pid@host unless set (two nodes in one JVM must differ)
                .nodeId(cluster.nodeId())
                .build();
        return new ClaimWatchingTokenStore(jdbc, EventProcessingConfiguration.SAGA_PROCESSOR, () -> {
            if (sagaStore.getIfAvailable() instanceof ChangedOnlySagaStore store) {
                store.forgetCached();
            }
        });
    }

    /**
     * {@link PostgresSagaSqlSchema} loads a saga with SELECT … FOR UPDATE: a deadline and an event cannot interleave.
     * A saga its handler left as loaded is not written back (decisions.md §60); lookups this node answered before
     * are answered from memory while it holds the saga's claims ({@code checkout.saga-cache.max-entries}, 0: none;
     * §79).
     */
    @Bean
    public SagaStore<Object> sagaStore(ConnectionProvider connectionProvider, Serializer serializer,
                                       @Value("${checkout.saga-cache.max-entries:4096}") int maxEntries) {
        return new ChangedOnlySagaStore(JdbcSagaStore.builder()
                .connectionProvider(connectionProvider)
                .sqlSchema(new PostgresSagaSqlSchema())
                .serializer(serializer)
                .build(), serializer, connectionProvider, maxEntries);
    }

    /** db-scheduler executes the deadlines Axon schedules; the task resolves the manager lazily (it needs the scheduler). */
    @Bean
    @Qualifier("deadlineDetailsTask")
    public Task<DbSchedulerBinaryDeadlineDetails> dbSchedulerDeadlineDetailsTask(ApplicationContext context) {
        // a failed deadline runs again within seconds, not db-scheduler's default 5 minutes (decision 23)
        return new PromptRetryTask<>(
                DbSchedulerDeadlineManager.binaryTask(() -> context.getBean(DbSchedulerDeadlineManager.class)),
                failures -> WorkflowPolicy.backoff(Duration.ofSeconds(1), Duration.ofSeconds(30), failures));
    }

    @Bean
    public DeadlineManager deadlineManager(Scheduler scheduler, DataSource dataSource,
                                           @Value("${db-scheduler.table-name:scheduled_tasks}") String table,
                                           org.axonframework.config.Configuration configuration,
                                           Serializer serializer,
                                           TransactionManager transactionManager,
                                           DeadlineManagerSpanFactory spanFactory,
                                           List<CorrelationDataProvider> correlationDataProviders) {
        DbSchedulerDeadlineManager.Builder builder = DbSchedulerDeadlineManager.builder()
                .scheduler(scheduler)
                .scopeAwareProvider(new ConfigurationScopeAwareProvider(configuration))
                .transactionManager(transactionManager)
                .startScheduler(false) // the db-scheduler starter starts and stops it
                .stopScheduler(false);
        LeaseDeadlineManager manager = new LeaseDeadlineManager(builder, dataSource, table, serializer, spanFactory,
                Set.of(Deadlines.LEASE_EXPIRED, Deadlines.HOLD_EXPIRED), RecordedInputs.DEADLINE_OBSERVER);
        // events a deadline handler applies carry the same origin and recorded input as those of a command
        manager.registerHandlerInterceptor(new CorrelationDataInterceptor<>(correlationDataProviders));
        return manager;
    }

    /** Picked up by the db-scheduler starter, which adds every {@code ExecutionInterceptor} bean to the scheduler. */
    @Bean
    public DeadlineLagInterceptor deadlineLagInterceptor(MeterRegistry meters, Clock clock) {
        return new DeadlineLagInterceptor(meters, clock);
    }
}
