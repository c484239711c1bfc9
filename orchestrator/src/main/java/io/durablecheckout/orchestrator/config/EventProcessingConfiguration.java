package io.durablecheckout.orchestrator.config;

import io.durablecheckout.orchestrator.axon.eventstore.WakeUpEventSource;
import io.durablecheckout.orchestrator.axon.saga.AssociationPartitionedSagaManager;
import io.durablecheckout.orchestrator.deadletter.ParkedEvents;
import io.durablecheckout.orchestrator.deadletter.PoisonEventPolicy;
import io.durablecheckout.orchestrator.deadletter.SagaPoisonHandler;
import io.durablecheckout.orchestrator.readmodel.CheckoutSummaryProjection;
import io.durablecheckout.orchestrator.saga.CheckoutSaga;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.config.ConfigurerModule;
import org.axonframework.eventhandling.deadletter.jdbc.JdbcSequencedDeadLetterQueue;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.PropagatingErrorHandler;
import org.axonframework.serialization.Serializer;
import org.axonframework.eventhandling.TrackingEventProcessorConfiguration;
import org.axonframework.messaging.StreamableMessageSource;
import org.axonframework.modelling.saga.AnnotatedSagaManager;
import org.axonframework.modelling.saga.SagaManagerSpanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Every event processor is a pooled streaming processor on the PostgreSQL event store, configured here: errors
 * propagate (the batch rolls back and is retried with back-off; Axon's log-and-skip would lose a checkout's step); a
 * new processor starts at the tail (the head can skip an event committed late with a lower global index); the saga's
 * segments are partitioned by checkout; payments only queues its intents in the intake (decision 132); inventory runs on
 * two segments, each batch locking its stock rows in one order by its first stock statement (decision 138).
 */
@Configuration(proxyBeanMethods = false)
public class EventProcessingConfiguration {

    /** The processors' names are their owners' ({@link CheckoutSaga}, {@link CheckoutSummaryProjection}, ...). */
    public static final String SAGA_PROCESSOR = CheckoutSaga.PROCESSOR;
    public static final String SUMMARY_PROCESSOR = CheckoutSummaryProjection.PROCESSOR;
    public static final List<String> DEAD_LETTERED = ParkedEvents.DEAD_LETTERED;

    /**
     * Registers the saga as Axon's Spring support would (a bean of this name makes it step aside), but with its segments
     * partitioned by the checkout's id ({@link AssociationPartitionedSagaManager}): a segment works only for its own
     * checkouts. The rest is Axon's default manager: the saga's repository, handlers and error handler.
     */
    @Bean(name = "checkoutSaga$$Registrar")
    @ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
    public ConfigurerModule checkoutSagaRegistrar() {
        return configurer -> configurer.eventProcessing().registerSaga(CheckoutSaga.class, saga -> saga
                .configureSagaManager(c -> new AssociationPartitionedSagaManager<>(AnnotatedSagaManager.<CheckoutSaga>builder()
                        .sagaType(CheckoutSaga.class)
                        .sagaRepository(c.eventProcessingConfiguration().sagaConfiguration(CheckoutSaga.class).repository())
                        .parameterResolverFactory(c.parameterResolverFactory())
                        .handlerDefinition(c.handlerDefinition(CheckoutSaga.class))
                        .listenerInvocationErrorHandler(
                                c.eventProcessingConfiguration().listenerInvocationErrorHandler(SAGA_PROCESSOR))
                        .spanFactory(c.getComponent(SagaManagerSpanFactory.class)))));
    }

    /** The saga's parked results (see {@link SagaPoisonHandler}); Axon builds no queue for a saga itself. */
    @Bean
    public JdbcSequencedDeadLetterQueue<EventMessage<?>> sagaDeadLetterQueue(ConnectionProvider connections,
                                                                              TransactionManager transactions,
                                                                              Serializer serializer,
                                                                              ProcessingProperties properties) {
        return JdbcSequencedDeadLetterQueue.builder()
                .processingGroup(SAGA_PROCESSOR)
                .connectionProvider(connections)
                .transactionManager(transactions)
                .genericSerializer(serializer)
                .eventSerializer(serializer)
                .maxSequences(properties.deadLetterMaxSequences())
                .build();
    }

    @Bean
    public ConfigurerModule eventProcessingConfigurerModule(ProcessingProperties properties,
                                                            ObjectProvider<ConnectionProvider> connections,
                                                            ObjectProvider<JdbcSequencedDeadLetterQueue<EventMessage<?>>> sagaQueue) {
        AtomicReference<WakeUpEventSource> source = new AtomicReference<>();
        AtomicReference<WakeUpEventSource> tickOnly = new AtomicReference<>();
        PoisonEventPolicy poison = new PoisonEventPolicy();
        return configurer -> {
            configurer.onShutdown(() -> {
                for (AtomicReference<WakeUpEventSource> each : List.of(source, tickOnly)) {
                    WakeUpEventSource s = each.get();
                    if (s != null) {
                        s.close();
                    }
                }
            });
            configurer.eventProcessing(processing -> {
                processing.registerDefaultListenerInvocationErrorHandler(c -> PropagatingErrorHandler.instance());
                processing.registerDefaultErrorHandler(c -> PropagatingErrorHandler.instance());
                processing.registerListenerInvocationErrorHandler(SAGA_PROCESSOR,
                        c -> new SagaPoisonHandler(sagaQueue::getObject));
                for (String group : DEAD_LETTERED) {
                    // Sequenced by Axon's default policy, the aggregate id: every event these processors handle is
                    // one of a Checkout's, so the sequence is the checkout and one bad event parks that checkout only.
                    processing.registerDeadLetterQueue(group, c -> JdbcSequencedDeadLetterQueue.builder()
                                    .processingGroup(group)
                                    .connectionProvider(connections.getObject())
                                    .transactionManager(c.getComponent(TransactionManager.class))
                                    .genericSerializer(c.serializer())
                                    .eventSerializer(c.eventSerializer())
                                    .maxSequences(properties.deadLetterMaxSequences())
                                    .build())
                            .registerDeadLetterPolicy(group, c -> poison)
                            // without the cache every event costs a query for "is its checkout parked?"
                            .registerDeadLetteringEventHandlerInvokerConfiguration(group,
                                    (c, invoker) -> invoker.enableSequenceIdentifierCache());
                }
                if (properties.mode() == Mode.BASELINE) {
                    // Axon's defaults, for comparison in benchmarks: tracking processors, one thread and segment,
                    // batch size 1, default claims, polling the store. Kept, because correctness needs them: errors
                    // propagate, and processors start at the tail.
                    properties.processors().keySet().forEach(name -> processing.registerTrackingEventProcessor(name,
                            org.axonframework.config.Configuration::eventStore,
                            c -> TrackingEventProcessorConfiguration.forSingleThreadedProcessing()
                                    .andInitialTrackingToken(StreamableMessageSource::createTailToken)));
                    return;
                }
                properties.processors().forEach((name, p) -> processing.registerPooledStreamingEventProcessor(
                        name,
                        // the read model is woken by the tick only: no checkout waits for it (a read it has not
                        // reached folds the events), and a tick's batch is one transaction instead of one per commit
                        c -> (name.equals(SUMMARY_PROCESSOR) ? tickOnly : source).updateAndGet(existing ->
                                existing != null ? existing : new WakeUpEventSource(c.eventStore(),
                                        name.equals(SUMMARY_PROCESSOR) ? properties.readModelTick()
                                                : properties.wakeUpTick(), properties.wakeUpSettle(),
                                        !name.equals(SUMMARY_PROCESSOR))),
                        (c, builder) -> builder
                                .initialToken(StreamableMessageSource::createTailToken)
                                .initialSegmentCount(p.segments())
                                // no cap on claimed segments: a live split adds some (decision 137)
                                .batchSize(p.batchSize())
                                .tokenClaimInterval(properties.tokenClaimInterval().toMillis())
                                .claimExtensionThreshold(properties.claimExtensionThreshold().toMillis())));
            });
        };
    }

    /**
     * @param processors per processor name: segments and batch size (events handled in one transaction)
     */
    @ConfigurationProperties("checkout.processing")
    public record ProcessingProperties(Mode mode, Map<String, Processor> processors, Duration tokenClaimInterval,
                                       Duration claimExtensionThreshold, Duration wakeUpTick,
                                       Duration wakeUpSettle, Duration fetchInterval,
                                       Integer deadLetterMaxSequences, Duration readModelTick) {
        public ProcessingProperties {
            mode = mode != null ? mode : Mode.TUNED;
            Map<String, Processor> merged = new LinkedHashMap<>(Map.of(
                    SAGA_PROCESSOR, new Processor(2, 16),
                    SUMMARY_PROCESSOR, new Processor(1, 1024),
                    "inventory", new Processor(2, 16),
                    "payments", new Processor(4, 8),
                    "receipts", new Processor(2, 16)));
            if (processors != null) {
                // one key set alone (say .segments) keeps the default of the other, as the settings table says
                processors.forEach((name, p) -> merged.put(name, p.over(merged.getOrDefault(name, new Processor(1, 16)))));
            }
            processors = Map.copyOf(merged);
            tokenClaimInterval = tokenClaimInterval != null ? tokenClaimInterval : Duration.ofSeconds(2);
            claimExtensionThreshold = claimExtensionThreshold != null ? claimExtensionThreshold : Duration.ofSeconds(2);
            wakeUpTick = wakeUpTick != null ? wakeUpTick : Duration.ofMillis(250);
            wakeUpSettle = wakeUpSettle != null ? wakeUpSettle : Duration.ofMillis(25);
            // the read model's only wake-up: a checkout that lives within one tick is one row write, not one per tick
            // it spans (every write touches the row's eleven indexes; decisions.md §80)
            readModelTick = readModelTick != null ? readModelTick : Duration.ofSeconds(1);
            // while events keep coming, the event store fetches at most this often (EventsOnlyStorageEngine)
            fetchInterval = fetchInterval != null ? fetchInterval : Duration.ofMillis(10);
            // parked checkouts per processor before the queue refuses more (the batch then fails and is retried)
            deadLetterMaxSequences = deadLetterMaxSequences != null ? deadLetterMaxSequences : 4096;
        }

        public record Processor(Integer segments, Integer batchSize) {
            /** This processor's settings, each one unset taken from {@code defaults}. */
            Processor over(Processor defaults) {
                return new Processor(segments != null ? segments : defaults.segments(),
                        batchSize != null ? batchSize : defaults.batchSize());
            }
        }
    }

    /** {@code checkout.processing.mode}: TUNED (default) or BASELINE (Axon's defaults, for benchmarks). */
    public enum Mode { TUNED, BASELINE }
}
