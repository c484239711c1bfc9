package io.durablecheckout.orchestrator.config;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.exceptions.TaskInstanceCurrentlyExecutingException;
import com.github.kagkarlsson.scheduler.exceptions.TaskInstanceNotFoundException;
import org.axonframework.deadline.dbscheduler.DbSchedulerDeadlineManager;
import org.axonframework.deadline.dbscheduler.DbSchedulerDeadlineToken;
import io.durablecheckout.orchestrator.replay.RecordedInputs;
import org.axonframework.messaging.ScopeDescriptor;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nonnull;
import javax.annotation.Nullable;
import java.time.Instant;

/**
 * Axon's db-scheduler deadline manager, with one change: cancelling a lease deadline that is firing at that very
 * moment is not an error. A result and its lease expiry can meet (typically right after a restart, when expired
 * leases and late results are processed together). Axon's own cancel then throws at commit and rolls back the
 * recording of the result. Here the cancel is skipped instead: the firing deadline finds the lease no longer current
 * (or the two commits collide on the aggregate's sequence number and one is retried), so the outcome is the same.
 * <p>
 * It also tells {@link RecordedInputs} what the Checkout scheduled and cancelled, so replay can compare it.
 */
class LeaseDeadlineManager extends DbSchedulerDeadlineManager {

    private static final Logger log = LoggerFactory.getLogger(LeaseDeadlineManager.class);

    private final Scheduler scheduler;

    public LeaseDeadlineManager(DbSchedulerDeadlineManager.Builder builder, Scheduler scheduler) {
        super(builder);
        this.scheduler = scheduler;
    }

    @Nonnull
    @Override
    public String schedule(@Nonnull Instant triggerDateTime, @Nonnull String deadlineName,
                           @Nullable Object messageOrPayload, @Nonnull ScopeDescriptor deadlineScope) {
        String id = super.schedule(triggerDateTime, deadlineName, messageOrPayload, deadlineScope);
        if (messageOrPayload != null) {
            RecordedInputs.scheduled(id, triggerDateTime, deadlineName, messageOrPayload, deadlineScope);
        }
        return id;
    }

    @Override
    public void cancelSchedule(@Nonnull String deadlineName, @Nonnull String scheduleId) {
        RecordedInputs.cancelled(deadlineName, scheduleId);
        Runnable cancel = () -> {
            try {
                scheduler.cancel(new DbSchedulerDeadlineToken(scheduleId));
            } catch (TaskInstanceNotFoundException | TaskInstanceCurrentlyExecutingException e) {
                log.debug("Deadline {} [{}] already fired or is firing; not cancelled", deadlineName, scheduleId);
            } catch (com.github.kagkarlsson.scheduler.exceptions.ExecutionException e) {
                // the row went between db-scheduler's lookup and its delete (it fired on another node meanwhile):
                // nothing is left to cancel, and failing here would roll back the result that cancels it
                log.debug("Deadline {} [{}] removed while being cancelled; not cancelled", deadlineName, scheduleId);
            }
        };
        if (CurrentUnitOfWork.isStarted()) {
            CurrentUnitOfWork.get().onPrepareCommit(u -> cancel.run());
        } else {
            cancel.run();
        }
    }
}
