package io.durablecheckout.orchestrator.config;

import org.axonframework.eventhandling.EventProcessor;
import org.axonframework.eventhandling.StreamingEventProcessor;
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
 * their next claim attempt instead of after the claim timeout. Runs after the web server has drained and stopped, and
 * before the deadline scheduler, Axon's own shutdown, the pool and the database.
 */
final class ProcessorShutdown implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ProcessorShutdown.class);

    private final org.axonframework.config.EventProcessingConfiguration processing;
    private final Duration timeout;
    private volatile boolean running;

    ProcessorShutdown(org.axonframework.config.EventProcessingConfiguration processing, Duration timeout) {
        this.processing = processing;
        this.timeout = timeout;
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
