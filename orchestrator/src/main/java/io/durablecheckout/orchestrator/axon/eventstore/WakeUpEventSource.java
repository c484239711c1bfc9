package io.durablecheckout.orchestrator.axon.eventstore;

import org.axonframework.common.stream.BlockingStream;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.messaging.StreamableMessageSource;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The event store as a message source for pooled processors, with the "events available" callback the embedded
 * store lacks. Without it a caught-up pooled processor re-polls only every 500 ms (hard-coded in Axon's
 * Coordinator), so each hop of a checkout waited up to half a second.
 * <p>
 * The callback fires after every local unit of work that appended events commits, and on a short tick so events
 * appended by other nodes are noticed too. After a wake-up, {@code hasNextAvailable()} waits briefly for the
 * store's producer to fetch the new events instead of answering "nothing yet" at once.
 */
public final class WakeUpEventSource implements StreamableMessageSource<TrackedEventMessage<?>>, AutoCloseable {

    private static final AtomicLong INSTANCES = new AtomicLong();

    /** Per source: with one key for all, only the first source on a store registered its wake-up in a unit of work. */
    private final String resourceKey = WakeUpEventSource.class.getName() + "#" + INSTANCES.incrementAndGet();

    private final EventStore delegate;
    private final Set<Runnable> callbacks = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService ticker;
    private final long settleMillis;
    private volatile long awakeUntilNanos;

    /**
     * @param onLocalCommit whether a local commit that appended events wakes the processors at once; without it
     *                      only the tick does (the read model: its batches then hold a tick's events, not a commit's)
     */
    public WakeUpEventSource(EventStore delegate, Duration tick, Duration settle, boolean onLocalCommit) {
        this.delegate = delegate;
        this.settleMillis = settle.toMillis();
        this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "event-source-wakeup");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleWithFixedDelay(this::wakeUp, tick.toMillis(), tick.toMillis(), TimeUnit.MILLISECONDS);
        if (!onLocalCommit) {
            return;
        }
        delegate.registerDispatchInterceptor(messages -> {
            CurrentUnitOfWork.ifStarted(uow -> uow.root().getOrComputeResource(resourceKey, k -> {
                uow.root().afterCommit(u -> wakeUp());
                return Boolean.TRUE;
            }));
            return (i, m) -> m;
        });
    }

    public void wakeUp() {
        awakeUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settleMillis * 4);
        callbacks.forEach(Runnable::run);
    }

    @Override
    public BlockingStream<TrackedEventMessage<?>> openStream(TrackingToken trackingToken) {
        return new Stream(delegate.openStream(trackingToken));
    }

    @Override
    public TrackingToken createTailToken() {
        return delegate.createTailToken();
    }

    @Override
    public TrackingToken createHeadToken() {
        return delegate.createHeadToken();
    }

    @Override
    public TrackingToken createTokenAt(Instant dateTime) {
        return delegate.createTokenAt(dateTime);
    }

    @Override
    public void close() {
        ticker.shutdownNow();
    }

    private final class Stream implements BlockingStream<TrackedEventMessage<?>> {
        private final BlockingStream<TrackedEventMessage<?>> stream;
        private volatile Runnable callback;

        private Stream(BlockingStream<TrackedEventMessage<?>> stream) {
            this.stream = stream;
        }

        @Override
        public Optional<TrackedEventMessage<?>> peek() {
            return stream.peek();
        }

        @Override
        public boolean hasNextAvailable(int timeout, TimeUnit unit) throws InterruptedException {
            return stream.hasNextAvailable(timeout, unit);
        }

        @Override
        public boolean hasNextAvailable() {
            if (System.nanoTime() - awakeUntilNanos < 0) {
                try {
                    return stream.hasNextAvailable((int) settleMillis, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return stream.hasNextAvailable();
        }

        @Override
        public TrackedEventMessage<?> nextAvailable() throws InterruptedException {
            return stream.nextAvailable();
        }

        @Override
        public void close() {
            Runnable cb = callback;
            if (cb != null) {
                callbacks.remove(cb);
            }
            stream.close();
        }

        @Override
        public java.util.stream.Stream<TrackedEventMessage<?>> asStream() {
            return stream.asStream();
        }

        @Override
        public void skipMessagesWithPayloadTypeOf(TrackedEventMessage<?> ignoredMessage) {
            stream.skipMessagesWithPayloadTypeOf(ignoredMessage);
        }

        @Override
        public boolean setOnAvailableCallback(Runnable callback) {
            Runnable old = this.callback;
            if (old != null) {
                callbacks.remove(old);
            }
            this.callback = callback;
            callbacks.add(callback);
            return true;
        }
    }
}
