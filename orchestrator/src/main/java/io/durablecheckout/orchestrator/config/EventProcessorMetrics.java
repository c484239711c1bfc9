package io.durablecheckout.orchestrator.config;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.axonframework.eventhandling.EventTrackerStatus;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.stereotype.Component;

import java.util.Map;

/**
 * What an operator needs to see of each event processor, computed when the metrics are scraped rather than per
 * message (Axon's per-message monitors are off: see application.yml):
 * {@code checkout.processor.lag.events} (events between the head of the store and the slowest segment this node
 * holds; 0 when it holds none) and {@code checkout.processor.segments.claimed}.
 */
@Component
class EventProcessorMetrics implements SmartInitializingSingleton {

    private final MeterRegistry meters;
    private final org.axonframework.config.EventProcessingConfiguration processing;
    private final EventStore eventStore;

    public EventProcessorMetrics(MeterRegistry meters, org.axonframework.config.EventProcessingConfiguration processing,
                            EventStore eventStore) {
        this.meters = meters;
        this.processing = processing;
        this.eventStore = eventStore;
    }

    @Override
    public void afterSingletonsInstantiated() {
        processing.eventProcessors().forEach((name, processor) -> {
            if (processor instanceof StreamingEventProcessor streaming) {
                Gauge.builder("checkout.processor.lag.events", streaming, this::lag).tag("processor", name)
                        .description("events between the head of the store and the slowest segment held here")
                        .register(meters);
                Gauge.builder("checkout.processor.segments.claimed", streaming, p -> p.processingStatus().size())
                        .tag("processor", name).register(meters);
            }
        });
    }

    private double lag(StreamingEventProcessor processor) {
        Map<Integer, EventTrackerStatus> status = processor.processingStatus();
        if (status.isEmpty()) {
            return 0;
        }
        TrackingToken head = eventStore.createHeadToken();
        long headPosition = head == null ? 0 : head.position().orElse(0);
        long slowest = status.values().stream()
                .mapToLong(s -> s.getCurrentPosition().orElse(-1))
                .min().orElse(headPosition);
        return Math.max(0, headPosition - slowest);
    }
}
