package io.durablecheckout.orchestrator.it.support;

import io.durablecheckout.activities.WorkerPauseHook;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.values.Step;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The shared test context's worker pause hook: a test holds the worker of one checkout's step after it has read its
 * intent and before it touches the resource, acts (cancels, say), then releases it. This forces the interleaving a
 * scenario names instead of hoping the timing produces it. Holds nothing unless a test asks.
 */
public final class HeldWorkers implements WorkerPauseHook {

    /** One hold: reached when the worker is parked, released by the test. */
    public static final class Hold implements AutoCloseable {
        private final CountDownLatch reached = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);

        /** Waits until the worker has read the intent and is parked before the resource. */
        public void awaitReached() throws InterruptedException {
            if (!reached.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("the worker never reached the hold");
            }
        }

        public void release() {
            released.countDown();
        }

        @Override
        public void close() {
            release();
        }
    }

    private final Map<String, Hold> holds = new ConcurrentHashMap<>();

    /** Holds the next worker that reads an intent for {@code step} of {@code checkoutId}. */
    public Hold hold(String checkoutId, Step step) {
        Hold hold = new Hold();
        holds.put(checkoutId + "/" + step.slug(), hold);
        return hold;
    }

    @Override
    public void afterIntentRead(ActivityIntent intent) {
        Hold hold = holds.remove(intent.checkoutId().value() + "/" + intent.step().slug());
        if (hold == null) {
            return;
        }
        hold.reached.countDown();
        try {
            // bounded, so a test that forgets to release cannot hang the suite
            hold.released.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @TestConfiguration(proxyBeanMethods = false)
    public static class Config {
        @Bean
        HeldWorkers heldWorkers() {
            return new HeldWorkers();
        }
    }
}
