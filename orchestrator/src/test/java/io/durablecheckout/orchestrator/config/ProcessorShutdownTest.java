package io.durablecheckout.orchestrator.config;

import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.EmbeddedEventStore;
import org.axonframework.eventsourcing.eventstore.inmemory.InMemoryEventStorageEngine;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A clean stop's processor step also stops the event store's shared producer and waits for a fetch it has in flight
 * (once closed, an idle producer ends without reading), so no read reaches the pool after the pool closed
 * (GracefulShutdownIT saw one such ERROR). A fixture test: Axon's in-memory storage engine, holding the producer's
 * fetch until the stop waits for it.
 */
class ProcessorShutdownTest {

    @Test
    void theProcessorStepEndsOnlyWhenTheSharedProducersFetchHasEnded() throws Exception {
        CountDownLatch fetching = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        InMemoryEventStorageEngine engine = new InMemoryEventStorageEngine() {
            @Override
            public Stream<? extends TrackedEventMessage<?>> readEvents(TrackingToken trackingToken, boolean mayBlock) {
                if (!Thread.currentThread().getName().startsWith("EmbeddedEventStore-")) {
                    return super.readEvents(trackingToken, mayBlock); // the consumer's own catch-up read
                }
                fetching.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS); // a fetch the database is still answering
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.readEvents(trackingToken, mayBlock);
            }
        };
        List<Thread> before = ProcessorShutdown.producerThreads();
        EmbeddedEventStore store = EmbeddedEventStore.builder().storageEngine(engine).build();
        // a consumer that has caught up tails the producer, which starts and fetches
        store.openStream(null).hasNextAvailable(100, TimeUnit.MILLISECONDS);
        assertThat(fetching.await(10, TimeUnit.SECONDS)).isTrue();
        List<Thread> mine = new ArrayList<>(ProcessorShutdown.producerThreads());
        mine.removeAll(before);
        assertThat(mine).as("the producer's thread, found by its name").isNotEmpty();

        Thread stopping = Thread.currentThread();
        Thread releaser = new Thread(() -> {
            try {
                // the fetch ends only once the stop is waiting for it
                await().atMost(Duration.ofSeconds(5)).until(() -> stopping.getState() == Thread.State.TIMED_WAITING);
            } finally {
                release.countDown();
            }
        });
        releaser.start();
        new ProcessorShutdown(null, Duration.ofSeconds(1), store).stopSharedProducer();

        assertThat(mine).as("producer threads still reading when the step ended").allMatch(t -> !t.isAlive()
                || Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getMethodName().equals("waitForData")));
        releaser.join();
    }
}
