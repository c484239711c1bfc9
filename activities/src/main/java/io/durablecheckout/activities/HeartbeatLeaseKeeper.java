package io.durablecheckout.activities;

import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.axonframework.eventhandling.gateway.EventGateway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Heartbeats ({@link ActivityHeartbeatEvent}) from the owner of an intent, each published in its own transaction on
 * this keeper's thread (never in the worker's batch transaction, which would make it visible only with the result):
 * <ul>
 *   <li><b>the claim</b>: when a worker picks up an intent whose lease has less than {@code claimMargin} left (it
 *   waited in a queue, or its lease was deferred because nobody held it) and is still working on it
 *   {@code claimDelay} later, a heartbeat tells the Checkout that the lease is held, and the lease runs from then. A
 *   fresh intent's first heartbeat comes after {@code interval}: its lease still has room, and its result normally
 *   arrives first;</li>
 *   <li><b>renewals</b>: every {@code interval} while the work lasts (a slow provider call), so a call that outlives a
 *   fraction of the lease keeps it;</li>
 *   <li>for at most {@code maxHold}: a worker stuck for longer stops renewing, its lease runs out and a new owner is
 *   sent (fencing makes whatever the stuck one does later harmless).</li>
 * </ul>
 * Only the owner of the current token is renewed (the Checkout checks); a late owner's heartbeat is recorded there as
 * rejected.
 */
class HeartbeatLeaseKeeper implements LeaseKeeper, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatLeaseKeeper.class);

    private final EventGateway events;
    private final Clock clock;
    private final Duration claimMargin;
    private final Duration claimDelay;
    private final Duration interval;
    private final Duration maxHold;
    private final MeterRegistry meters;
    /** Resolved once per step and kind, not looked up in the registry per beat. */
    private final Map<String, Counter> heartbeats = new ConcurrentHashMap<>();
    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "lease-heartbeat");
        t.setDaemon(true);
        return t;
    });

    public HeartbeatLeaseKeeper(EventGateway events, Clock clock, Duration claimMargin, Duration claimDelay,
                                Duration interval, Duration maxHold, MeterRegistry meters) {
        this.events = events;
        this.clock = clock;
        this.claimMargin = claimMargin;
        this.claimDelay = claimDelay;
        this.interval = interval;
        this.maxHold = maxHold;
        this.meters = meters;
        for (io.durablecheckout.api.values.Step step : io.durablecheckout.api.values.Step.values()) {
            for (String kind : java.util.List.of("claim", "renewal")) {
                heartbeats(step, kind); // every series at zero from the start (ActivityMetrics.expect)
            }
        }
    }

    @Override
    public Hold hold(ActivityIntent intent) {
        Instant start = clock.instant();
        // Picked up late (little or none of the issued lease left): claim soon, so the lease starts running. Not at
        // once and not on this thread: a worker that finishes within the delay never needed a claim (after a restart
        // every intent is late, and a claim each would cost a transaction, a saga hop and an event per step).
        boolean late = Duration.between(start, intent.lease().expiresAt()).compareTo(claimMargin) < 0;
        long first = (late ? claimDelay : interval).toMillis();
        AtomicReference<ScheduledFuture<?>> beats = new AtomicReference<>();
        AtomicBoolean sent = new AtomicBoolean();
        beats.set(scheduler.scheduleAtFixedRate(() -> {
            if (Duration.between(start, clock.instant()).compareTo(maxHold) > 0) {
                beats.get().cancel(false); // stuck for too long: let the lease run out
                return;
            }
            beat(intent, sent.getAndSet(true) ? "renewal" : "claim");
        }, first, interval.toMillis(), TimeUnit.MILLISECONDS));
        return () -> beats.get().cancel(false);
    }

    private void beat(ActivityIntent intent, String kind) {
        try {
            events.publish(new ActivityHeartbeatEvent(intent.checkoutId(), intent.step(),
                    intent.lease().operationId(), intent.lease().fencingToken()));
            heartbeats(intent.step(), kind).increment();
        } catch (RuntimeException e) {
            log.warn("Heartbeat for {} failed: {}", intent.lease().operationId(), e.toString());
        }
    }

    private Counter heartbeats(io.durablecheckout.api.values.Step step, String kind) {
        return heartbeats.computeIfAbsent(step.slug() + '\n' + kind, k -> Counter.builder("checkout.activity.heartbeats")
                .description("Heartbeats sent by workers holding a lease: claims and renewals")
                .tag("step", step.slug()).tag("kind", kind)
                .register(meters));
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
