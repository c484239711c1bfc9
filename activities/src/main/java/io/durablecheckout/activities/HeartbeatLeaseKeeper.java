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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Heartbeats ({@link ActivityHeartbeatEvent}) from the owner of an intent, each published in its own transaction on
 * this keeper's thread (never in the worker's batch transaction, which would make it visible only with the result):
 * <ul>
 *   <li><b>the claim</b>: when a worker picks up an intent whose lease has less than {@code claimMargin} left (it
 *   waited in a queue, or its lease was deferred because nobody held it), a heartbeat is published before any work,
 *   and the Checkout starts the lease from that moment. A fresh intent sends none: its lease still has room, and its
 *   result normally arrives first;</li>
 *   <li><b>renewals</b>: every {@code interval} while the work lasts (a slow provider call), so a call that outlives a
 *   fraction of the lease keeps it;</li>
 *   <li>for at most {@code maxHold}: a worker stuck for longer stops renewing, its lease runs out and a new owner is
 *   sent (fencing makes whatever the stuck one does later harmless).</li>
 * </ul>
 * Only the owner of the current token is renewed (the Checkout checks); a late owner's heartbeat is recorded there as
 * rejected.
 */
public class HeartbeatLeaseKeeper implements LeaseKeeper, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatLeaseKeeper.class);

    private final EventGateway events;
    private final Clock clock;
    private final Duration claimMargin;
    private final Duration interval;
    private final Duration maxHold;
    private final MeterRegistry meters;
    private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "lease-heartbeat");
        t.setDaemon(true);
        return t;
    });

    public HeartbeatLeaseKeeper(EventGateway events, Clock clock, Duration claimMargin, Duration interval,
                                Duration maxHold, MeterRegistry meters) {
        this.events = events;
        this.clock = clock;
        this.claimMargin = claimMargin;
        this.interval = interval;
        this.maxHold = maxHold;
        this.meters = meters;
    }

    @Override
    public Hold hold(ActivityIntent intent) {
        Instant start = clock.instant();
        if (Duration.between(start, intent.lease().expiresAt()).compareTo(claimMargin) < 0) {
            claim(intent);
        }
        AtomicReference<ScheduledFuture<?>> renewals = new AtomicReference<>();
        renewals.set(scheduler.scheduleAtFixedRate(() -> {
            if (Duration.between(start, clock.instant()).compareTo(maxHold) > 0) {
                renewals.get().cancel(false); // stuck for too long: let the lease run out
                return;
            }
            beat(intent, "renewal");
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS));
        return () -> renewals.get().cancel(false);
    }

    /** Waits for the claim to be stored, so the Checkout hears of it before any result. */
    private void claim(ActivityIntent intent) {
        try {
            scheduler.submit(() -> beat(intent, "claim")).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // Not fatal: without the claim the lease is deferred until it is heard of or presumed lost.
            log.warn("Could not publish the claim of {}: {}", intent.lease().operationId(), e.toString());
        }
    }

    private void beat(ActivityIntent intent, String kind) {
        try {
            events.publish(new ActivityHeartbeatEvent(intent.checkoutId(), intent.step(),
                    intent.lease().operationId(), intent.lease().fencingToken()));
            Counter.builder("checkout.activity.heartbeats")
                    .description("Heartbeats sent by workers holding a lease: claims and renewals")
                    .tag("step", intent.step().slug()).tag("kind", kind)
                    .register(meters).increment();
        } catch (RuntimeException e) {
            log.warn("Heartbeat for {} failed: {}", intent.lease().operationId(), e.toString());
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
