package io.durablecheckout.benchmarks;

import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import org.axonframework.common.stream.BlockingStream;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStore;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * Tells when each checkout is done, without polling per checkout: one thread follows the event store from its very
 * first event (each configuration starts on an empty store, so nothing can be missed, not even an event that commits
 * late with a lower global index) and records the moment it sees a {@link CheckoutCompletedEvent}. That event is
 * appended only after the receipt is recorded, so "seen" is the workload's "confirmed and receipt sent", plus the
 * few milliseconds the store takes to hand a committed event to a reader.
 * <p>
 * Only the payload type and aggregate id are read: no payload is deserialized.
 */
final class CompletionWatcher implements AutoCloseable {

    private final ConcurrentMap<String, CompletableFuture<Long>> completions = new ConcurrentHashMap<>();
    private final BlockingStream<TrackedEventMessage<?>> stream;
    private final Thread thread;
    private volatile boolean stopped;
    /** Why the watcher stopped watching: every checkout asked about afterwards fails with it instead of waiting. */
    private volatile Exception failure;

    /**
     * For applications in other processes (the cluster run): polls the event table for completions every 20 ms. The
     * query re-reads a window below the highest index seen, so an event that commits late with a lower global index
     * (several nodes append at once) is still found.
     */
    CompletionWatcher(BenchDatabase db) {
        this.stream = null;
        this.thread = new Thread(() -> poll(db), "bench-completion-poller");
        thread.setDaemon(true);
        thread.start();
    }

    private void poll(BenchDatabase db) {
        long seenUpTo = 0;
        try (java.sql.Connection c = db.connect();
             java.sql.PreparedStatement q = c.prepareStatement("SELECT globalindex, aggregateidentifier FROM domainevententry"
                     + " WHERE globalindex > ? AND payloadtype = ?")) {
            q.setString(2, CheckoutCompletedEvent.class.getName());
            while (!stopped) {
                q.setLong(1, Math.max(0, seenUpTo - 5_000));
                long max = seenUpTo;
                try (java.sql.ResultSet r = q.executeQuery()) {
                    long seen = System.nanoTime();
                    while (r.next()) {
                        max = Math.max(max, r.getLong(1));
                        CompletableFuture<Long> f = completionOf(r.getString(2));
                        if (!f.isDone()) {
                            f.complete(seen);
                        }
                    }
                }
                seenUpTo = max;
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.sql.SQLException e) {
            if (!stopped) {
                failure = e;
                completions.values().forEach(f -> f.completeExceptionally(e));
            }
        }
    }

    CompletionWatcher(EventStore eventStore) {
        this.stream = eventStore.openStream(eventStore.createHeadToken());
        this.thread = new Thread(this::follow, "bench-completion-watcher");
        thread.setDaemon(true);
        thread.start();
    }

    /** The nanoTime at which the checkout was seen completed; ask before submitting it. */
    CompletableFuture<Long> completionOf(String checkoutId) {
        Exception failed = failure;
        if (failed != null) {
            return CompletableFuture.failedFuture(failed);
        }
        return completions.computeIfAbsent(checkoutId, id -> new CompletableFuture<>());
    }

    private void follow() {
        try {
            while (!stopped) {
                if (!stream.hasNextAvailable(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                TrackedEventMessage<?> message = stream.nextAvailable();
                long seen = System.nanoTime();
                if (message instanceof DomainEventMessage<?> domain
                        && CheckoutCompletedEvent.class.equals(message.getPayloadType())) {
                    completionOf(domain.getAggregateIdentifier()).complete(seen);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            if (!stopped) {
                failure = e;
                completions.values().forEach(f -> f.completeExceptionally(e));
                throw e;
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        thread.join(5_000);
        if (stream != null) {
            stream.close();
        }
    }
}
