package io.durablecheckout.orchestrator.config;

import org.axonframework.config.ConfigurerModule;
import org.axonframework.eventhandling.PropagatingErrorHandler;
import org.axonframework.eventhandling.TrackingEventProcessorConfiguration;
import org.axonframework.messaging.StreamableMessageSource;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Every event processor is a pooled streaming processor on the PostgreSQL event store, configured here in one place:
 * <ul>
 *   <li>errors propagate (the processor rolls back and retries the batch with back-off) instead of Axon's default
 *   log-and-skip, which would silently lose a step of a checkout;</li>
 *   <li>a new processor starts at the tail of the stream (the very first event): starting at the head can skip an
 *   event whose transaction commits after the processor's first read with a lower global index;</li>
 *   <li>the saga runs on one segment (more segments repeat the association lookup for every event and were slower),
 *   payments and receipts on a few so one slow provider call does not hold up every checkout;</li>
 *   <li>inventory runs on one segment: it is the only writer of the shared stock rows, and a batch locks the rows of
 *   several checkouts in one transaction, so two segments' batches took the same rows in opposite orders and
 *   deadlocked (PostgreSQL aborts one; the segment backs off and re-runs its batch, seconds of stall at 64 in flight,
 *   docs/benchmarks.md).</li>
 * </ul>
 */
@Configuration(proxyBeanMethods = false)
public class EventProcessingConfiguration {

    public static final String SAGA_PROCESSOR = "CheckoutSagaProcessor";
    public static final String SUMMARY_PROCESSOR = "checkout-summary";

    @Bean
    public ConfigurerModule eventProcessingConfigurerModule(ProcessingProperties properties) {
        AtomicReference<WakeUpEventSource> source = new AtomicReference<>();
        return configurer -> {
            configurer.onShutdown(() -> {
                WakeUpEventSource s = source.get();
                if (s != null) {
                    s.close();
                }
            });
            configurer.eventProcessing(processing -> {
                processing.registerDefaultListenerInvocationErrorHandler(c -> PropagatingErrorHandler.instance());
                processing.registerDefaultErrorHandler(c -> PropagatingErrorHandler.instance());
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
                        c -> source.updateAndGet(existing -> existing != null ? existing
                                : new WakeUpEventSource(c.eventStore(), properties.wakeUpTick(), properties.wakeUpSettle())),
                        (c, builder) -> builder
                                .initialToken(StreamableMessageSource::createTailToken)
                                .initialSegmentCount(p.segments())
                                .maxClaimedSegments(p.segments())
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
                                       Duration wakeUpSettle) {
        public ProcessingProperties {
            mode = mode != null ? mode : Mode.TUNED;
            Map<String, Processor> merged = new LinkedHashMap<>(Map.of(
                    SAGA_PROCESSOR, new Processor(1, 16),
                    SUMMARY_PROCESSOR, new Processor(1, 1024),
                    "inventory", new Processor(1, 16),
                    "payments", new Processor(4, 4),
                    "receipts", new Processor(2, 16)));
            if (processors != null) {
                merged.putAll(processors);
            }
            processors = Map.copyOf(merged);
            tokenClaimInterval = tokenClaimInterval != null ? tokenClaimInterval : Duration.ofSeconds(2);
            claimExtensionThreshold = claimExtensionThreshold != null ? claimExtensionThreshold : Duration.ofSeconds(2);
            wakeUpTick = wakeUpTick != null ? wakeUpTick : Duration.ofMillis(250);
            wakeUpSettle = wakeUpSettle != null ? wakeUpSettle : Duration.ofMillis(25);
        }

        public record Processor(int segments, int batchSize) {
        }
    }

    /** {@code checkout.processing.mode}: TUNED (default) or BASELINE (Axon's defaults, for benchmarks). */
    public enum Mode { TUNED, BASELINE }
}
