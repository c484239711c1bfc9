package io.durablecheckout.orchestrator.config;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.exceptions.TaskInstanceCurrentlyExecutingException;
import com.github.kagkarlsson.scheduler.exceptions.TaskInstanceNotFoundException;
import org.axonframework.deadline.dbscheduler.DbSchedulerDeadlineManager;
import org.axonframework.deadline.dbscheduler.DbSchedulerDeadlineToken;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nonnull;

/**
 * Axon's db-scheduler deadline manager, with one change: cancelling a lease deadline that is firing at that very
 * moment is not an error. A result and its lease expiry can meet (typically right after a restart, when expired
 * leases and late results are processed together). Axon's own cancel then throws at commit and rolls back the
 * recording of the result. Here the cancel is skipped instead: the firing deadline finds the lease no longer current
 * (or the two commits collide on the aggregate's sequence number and one is retried), so the outcome is the same.
 */
public class LeaseDeadlineManager extends DbSchedulerDeadlineManager {

    private static final Logger log = LoggerFactory.getLogger(LeaseDeadlineManager.class);

    private final Scheduler scheduler;

    public LeaseDeadlineManager(DbSchedulerDeadlineManager.Builder builder, Scheduler scheduler) {
        super(builder);
        this.scheduler = scheduler;
    }

    @Override
    public void cancelSchedule(@Nonnull String deadlineName, @Nonnull String scheduleId) {
        Runnable cancel = () -> {
            try {
                scheduler.cancel(new DbSchedulerDeadlineToken(scheduleId));
            } catch (TaskInstanceNotFoundException | TaskInstanceCurrentlyExecutingException e) {
                log.debug("Deadline {} [{}] already fired or is firing; not cancelled", deadlineName, scheduleId);
            }
        };
        if (CurrentUnitOfWork.isStarted()) {
            CurrentUnitOfWork.get().onPrepareCommit(u -> cancel.run());
        } else {
            cancel.run();
        }
    }
}
