package io.durablecheckout.orchestrator.faults;

import io.durablecheckout.activities.WorkerPauseHook;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.values.Step;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * Fault injection, off unless configured: parks a worker that has read an intent for {@code step} with fencing token
 * {@code token} for {@code duration}, before it touches its resource. It reproduces the seed's stale owner (a worker
 * that pauses past its lease) deterministically, in a separate process too. The activities call it through their
 * {@link WorkerPauseHook} seam (inside the lease hold, before the handler).
 * <p>
 * {@code checkout.fault-injection.park-step=reserve-stock}, {@code …park-token=1}, {@code …park-duration=45s}.
 */
final class ParkingPauseHook implements WorkerPauseHook {

    private static final Logger log = LoggerFactory.getLogger(ParkingPauseHook.class);

    private final Step step;
    private final long token;
    private final Duration duration;

    ParkingPauseHook(String step, long token, Duration duration) {
        this.step = Step.valueOf(step.toUpperCase(Locale.ROOT).replace('-', '_'));
        this.token = token;
        this.duration = duration;
    }

    @Override
    public void afterIntentRead(ActivityIntent intent) {
        if (intent.step() != step || intent.lease().fencingToken().value() != token) {
            return;
        }
        log.warn("FAULT INJECTION: parking worker for {} token {} of {} for {}", step.slug(), token,
                intent.checkoutId(), duration);
        long until = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() - until < 0) {
            LockSupport.parkNanos(until - System.nanoTime());
        }
        log.warn("FAULT INJECTION: worker for {} token {} of {} resumes", step.slug(), token, intent.checkoutId());
    }
}
