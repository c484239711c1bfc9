package io.durablecheckout.orchestrator.cluster;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A node's periodic cluster chore, on a daemon thread of its own: started after the event processors and stopped
 * before them; a round that fails is logged and the next one runs.
 */
abstract class PeriodicTask implements SmartLifecycle {

    private final Logger log = LoggerFactory.getLogger(getClass());
    private final String threadName;
    private final Duration interval;
    private ScheduledExecutorService executor;

    PeriodicTask(String threadName, Duration interval) {
        this.threadName = threadName;
        this.interval = interval;
    }

    Duration interval() {
        return interval;
    }

    /** One round. */
    abstract void runOnce();

    @Override
    public void start() {
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(this::runQuietly, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return executor != null && !executor.isShutdown();
    }

    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 100; // after the processors started, stopped before them
    }

    private void runQuietly() {
        try {
            runOnce();
        } catch (RuntimeException e) {
            log.warn("{}: skipped this round: {}", threadName, e.toString());
        }
    }
}
