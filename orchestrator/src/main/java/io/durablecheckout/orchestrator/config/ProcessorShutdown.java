package io.durablecheckout.orchestrator.config;

import org.axonframework.eventhandling.EventProcessor;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.axonframework.eventsourcing.eventstore.EmbeddedEventStore;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Step 2 of a clean stop ({@link ShutdownConfiguration}): every event processor of this node stops at once, in
 * parallel, finishes or rolls back its batch and releases its segment claims, so the other nodes take them over at
 * their next claim attempt instead of after the claim timeout; then the event store's shared producer stops. Runs
 * after the web server has drained and stopped, and before the deadline scheduler, Axon's own shutdown, the pool and
 * the database.
 */
final class ProcessorShutdown implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ProcessorShutdown.class);

    /** How long a fetch the shared event producer has in flight may take to end before the stop goes on. */
    static final Duration PRODUCER_WAIT = Duration.ofSeconds(2);

    private final org.axonframework.config.EventProcessingConfiguration processing;
    private final Duration timeout;
    private final EventStore eventStore;
    private volatile boolean running;
    private final Runnable afterProcessors;

    ProcessorShutdown(org.axonframework.config.EventProcessingConfiguration processing, Duration timeout,
                      EventStore eventStore) {
        this(processing, timeout, eventStore, () -> {
        });
    }

    /** {@code afterProcessors}: work the processors handed to threads of their own, let finish (payments' calls). */
    ProcessorShutdown(org.axonframework.config.EventProcessingConfiguration processing, Duration timeout,
                      EventStore eventStore, Runnable afterProcessors) {
        this.afterProcessors = afterProcessors;
        this.processing = processing;
        this.timeout = timeout;
        this.eventStore = eventStore;
    }

    @Override
    public void start() {
        running = true; // the processors are started by Axon; this only takes part in the stop
    }

    @Override
    public void stop() {
        running = false;
        long started = System.nanoTime();
        Map<String, CompletableFuture<Void>> stopping = new LinkedHashMap<>();
        int claimed = 0;
        for (Map.Entry<String, EventProcessor> e : processing.eventProcessors().entrySet()) {
            if (e.getValue().isRunning()) {
                if (e.getValue() instanceof StreamingEventProcessor streaming) {
                    claimed += streaming.processingStatus().size();
                }
                stopping.put(e.getKey(), e.getValue().shutdownAsync());
            }
        }
        try {
            CompletableFuture.allOf(stopping.values().toArray(CompletableFuture[]::new))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            log.info("Event processors stopped in {} ms; {} segment claim(s) released", elapsed(started), claimed);
        } catch (TimeoutException e) {
            List<String> late = new ArrayList<>();
            stopping.forEach((name, f) -> {
                if (!f.isDone()) {
                    late.add(name);
                }
            });
            // not a clean stop: what these hold is taken over by the other nodes after the claim timeout
            log.warn("Event processors {} still stopping after {}; going on with the shutdown", late, timeout);
        } catch (ExecutionException e) {
            log.warn("An event processor failed to stop cleanly: {}", e.getCause().toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        afterProcessors.run();
        stopSharedProducer();
    }

    /**
     * Axon's event store reads for all processors on a thread of its own, which goes on fetching after they stopped
     * until Axon's shutdown closes it, after this step: a fetch begun just before could ask the pool for a connection
     * after the pool closed (an ERROR on a clean stop). Closed here; a fetch in flight is awaited. A producer idle in
     * its wait is not: woken, it finds itself closed and ends without reading (waiting for it would hold the stop for
     * up to its fetch delay while the deadline scheduler still runs, on a node that no longer processes).
     */
    void stopSharedProducer() {
        if (!(eventStore instanceof EmbeddedEventStore embedded)) {
            return;
        }
        embedded.shutDown(); // no fetch starts after this; Axon's own call later finds it closed
        long deadline = System.nanoTime() + PRODUCER_WAIT.toNanos();
        for (Thread producer : producerThreads()) {
            try {
                while (producer.isAlive() && !idle(producer) && System.nanoTime() - deadline < 0) {
                    producer.join(5);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Parked in the producer's wait for new events, not reading. */
    private static boolean idle(Thread producer) {
        for (StackTraceElement frame : producer.getStackTrace()) {
            if ("waitForData".equals(frame.getMethodName())
                    && frame.getClassName().startsWith(EmbeddedEventStore.class.getName())) {
                return true;
            }
        }
        return false;
    }

    /** The producer's threads: Axon's default thread factory for the embedded event store names them so. */
    static List<Thread> producerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(EmbeddedEventStore.class.getSimpleName() + "-")).toList();
    }

    private static long elapsed(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return ShutdownConfiguration.PROCESSORS_PHASE;
    }
}
