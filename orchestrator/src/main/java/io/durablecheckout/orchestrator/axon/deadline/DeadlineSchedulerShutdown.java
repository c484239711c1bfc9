package io.durablecheckout.orchestrator.axon.deadline;

import com.github.kagkarlsson.scheduler.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Step 3 of a clean stop ({@link ShutdownConfiguration}): db-scheduler stops polling and lets the deadlines it is
 * running finish ({@code db-scheduler.shutdown-max-wait}); it picks a due execution only on the thread that runs it,
 * so nothing picked is left waiting for the dead-execution check of another node. Runs after the processors and
 * before Axon's own shutdown, the pool and the database. The starter's destroy method, which would stop it a second
 * time (with a warning) at bean destruction, is removed ({@link ShutdownConfiguration}).
 */
public final class DeadlineSchedulerShutdown implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(DeadlineSchedulerShutdown.class);

    private final Scheduler scheduler;
    private volatile boolean running;

    private final int phase;

    /** @param phase the lifecycle phase it stops in (the wiring orders the stop) */
    public DeadlineSchedulerShutdown(Scheduler scheduler, int phase) {
        this.phase = phase;
        this.scheduler = scheduler;
    }

    @Override
    public void start() {
        running = true; // started by the db-scheduler starter once the context is ready
    }

    @Override
    public void stop() {
        running = false;
        if (scheduler == null) {
            return;
        }
        long started = System.nanoTime();
        int executing = scheduler.getCurrentlyExecuting().size();
        scheduler.stop();
        log.info("Deadline scheduler stopped in {} ms ({} deadline(s) were running)",
                (System.nanoTime() - started) / 1_000_000, executing);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return phase;
    }
}
