package io.durablecheckout.orchestrator.config;

import com.github.kagkarlsson.scheduler.boot.config.DbSchedulerConfigurationSupport;
import io.durablecheckout.orchestrator.checkout.Deadlines;
import io.durablecheckout.orchestrator.replay.RecordedInputs;
import org.axonframework.common.IdentifierFactory;
import org.axonframework.deadline.DeadlineManagerSpanFactory;
import org.axonframework.deadline.DeadlineMessage;
import org.axonframework.deadline.GenericDeadlineMessage;
import org.axonframework.deadline.dbscheduler.DbSchedulerBinaryDeadlineDetails;
import org.axonframework.deadline.dbscheduler.DbSchedulerDeadlineManager;
import org.axonframework.deadline.dbscheduler.DbSchedulerDeadlineToken;
import org.axonframework.messaging.ScopeDescriptor;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.serialization.SerializedObject;
import org.axonframework.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.annotation.Nonnull;
import javax.annotation.Nullable;
import javax.sql.DataSource;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Axon's db-scheduler deadline manager, with three changes:
 * <ul>
 * <li>Cancelling a deadline that is firing at that very moment is not an error (decision 2). A result and its lease
 * expiry can meet (typically right after a restart). Axon's own cancel then throws at commit and rolls back the
 * recording of the result. Here the firing deadline is left alone: it finds the lease no longer current (or the two
 * commits collide on the aggregate's sequence number and one is retried), so the outcome is the same.</li>
 * <li>A cancel is one conditional DELETE of a row no node has picked, instead of db-scheduler's SELECT, then DELETE
 * by version (decision 54). Same outcome in every case: not there, or picked (firing), is left as it is.</li>
 * <li>A lease deadline is scheduled with one INSERT of exactly the row db-scheduler would write, instead of its
 * SELECT (is the id taken?), then INSERT: the id is a fresh random one (decision 54). Other deadlines, rarer and
 * sometimes due at once (db-scheduler then wakes its poller), go through Axon as before.</li>
 * </ul>
 * Both statements run on the unit of work's connection at prepare commit, as Axon's do, so a deadline is written and
 * removed atomically with the events of the command that decided it (decision 1). A cancel and a lease written in
 * the same unit of work (a lease handed to the next step) are one statement, at the cancel's place: the fresh row
 * moves earlier, which nothing can notice, since nothing else knows its id yet (decision 79). It also tells
 * {@link RecordedInputs} what the Checkout scheduled and cancelled, so replay can compare it, and keeps the input
 * recorded for the events out of the deadline's own metadata (decision 83).
 */
class LeaseDeadlineManager extends DbSchedulerDeadlineManager {

    private static final Logger log = LoggerFactory.getLogger(LeaseDeadlineManager.class);

    private final JdbcTemplate jdbc;
    private final Serializer serializer;
    private final DeadlineManagerSpanFactory spanFactory;
    private final String insertSql;
    private final String cancelSql;

    /**
     * @param dataSource the one Spring's transaction manager binds (statements join the unit of work's transaction)
     * @param table      db-scheduler's table
     */
    public LeaseDeadlineManager(DbSchedulerDeadlineManager.Builder builder, DataSource dataSource, String table,
                                Serializer serializer, DeadlineManagerSpanFactory spanFactory) {
        super(builder.serializer(serializer).spanFactory(spanFactory)); // the same two this class uses
        this.jdbc = new JdbcTemplate(dataSource);
        this.serializer = serializer;
        this.spanFactory = spanFactory;
        // the columns and values of db-scheduler's JdbcTaskRepository insert (priority unused: null, as there)
        this.insertSql = "INSERT INTO " + table + " (task_name, task_instance, task_data, execution_time, picked, version)"
                + " VALUES (?, ?, ?, ?, false, 1)";
        this.cancelSql = "DELETE FROM " + table + " WHERE task_name = ? AND task_instance = ? AND NOT picked";
        this.swapSql = "WITH gone AS (" + cancelSql + " RETURNING 1) " + insertSql
                + " RETURNING (SELECT count(*) FROM gone)";
    }

    private final String swapSql;
    private static final String PENDING_LEASES = LeaseDeadlineManager.class.getName() + ".pendingLeases";

    /** A lease row to insert at prepare commit, unless a cancel of the same unit of work wrote it first. */
    private static final class PendingLease {
        final Object[] row;
        boolean written;

        PendingLease(Object[] row) {
            this.row = row;
        }
    }

    /** The lease rows of the current unit of work not written yet, in the order they were scheduled. */
    private static List<PendingLease> pendingLeases() {
        return CurrentUnitOfWork.isStarted()
                ? CurrentUnitOfWork.get().getOrComputeResource(PENDING_LEASES, k -> new ArrayList<>()) : null;
    }

    @Nonnull
    @Override
    public String schedule(@Nonnull Instant triggerDateTime, @Nonnull String deadlineName,
                           @Nullable Object messageOrPayload, @Nonnull ScopeDescriptor deadlineScope) {
        String id = Deadlines.LEASE_EXPIRED.equals(deadlineName) && triggerDateTime.isAfter(Instant.now())
                ? insert(triggerDateTime, deadlineName, messageOrPayload, deadlineScope)
                : super.schedule(triggerDateTime, deadlineName, messageOrPayload, deadlineScope);
        if (messageOrPayload != null) {
            RecordedInputs.scheduled(id, triggerDateTime, deadlineName, messageOrPayload, deadlineScope);
        }
        return id;
    }

    /**
     * A deadline keeps its origin (correlation and trace, an operator's keys) but not the input recorded for the
     * events of the unit of work that scheduled it: nothing reads it there (a fired deadline is recorded as its own
     * input), and it was most of each row's bytes, serialized twice (Jackson, then Java) on every schedule.
     */
    @Override
    protected <T> DeadlineMessage<T> processDispatchInterceptors(DeadlineMessage<T> message) {
        return super.processDispatchInterceptors(RecordedInputs.withoutInputs(message));
    }

    /** What {@link DbSchedulerDeadlineManager#schedule} does, with the row written by one INSERT. */
    private String insert(Instant triggerDateTime, String deadlineName, Object messageOrPayload, ScopeDescriptor scope) {
        DeadlineMessage<Object> message = GenericDeadlineMessage.asDeadlineMessage(deadlineName, messageOrPayload,
                triggerDateTime);
        String id = IdentifierFactory.getInstance().generateIdentifier();
        // serialized now: the scope and payload are the command's, the row is written at prepare commit
        DeadlineMessage<Object> intercepted = processDispatchInterceptors(message);
        SerializedObject<byte[]> s = serializer.serialize(scope, byte[].class);
        SerializedObject<byte[]> p = serializer.serialize(intercepted.getPayload(), byte[].class);
        SerializedObject<byte[]> m = serializer.serialize(intercepted.getMetaData(), byte[].class);
        DbSchedulerBinaryDeadlineDetails details = new DbSchedulerBinaryDeadlineDetails(deadlineName,
                s.getData(), s.getType().getName(), p.getData(), p.getType().getName(), p.getType().getRevision(),
                m.getData());
        PendingLease lease = new PendingLease(new Object[]{new DbSchedulerDeadlineToken(id).getTaskName(), id,
                DbSchedulerConfigurationSupport.SPRING_JAVA_SERIALIZER.serialize(details), Timestamp.from(triggerDateTime)});
        List<PendingLease> pending = pendingLeases();
        if (pending != null) {
            pending.add(lease);
        }
        runOnPrepareCommitOrNow(spanFactory.createScheduleSpan(deadlineName, id, message).wrapRunnable(() -> {
            if (!lease.written) {
                lease.written = true;
                jdbc.update(insertSql, lease.row);
            }
        }));
        return id;
    }

    @Override
    public void cancelSchedule(@Nonnull String deadlineName, @Nonnull String scheduleId) {
        RecordedInputs.cancelled(deadlineName, scheduleId);
        List<PendingLease> pending = pendingLeases();
        runOnPrepareCommitOrNow(() -> {
            String task = new DbSchedulerDeadlineToken(scheduleId).getTaskName();
            PendingLease next = pending == null ? null
                    : pending.stream().filter(l -> !l.written && !scheduleId.equals(l.row[1])).findFirst().orElse(null);
            long cancelled;
            if (next == null) {
                cancelled = jdbc.update(cancelSql, task, scheduleId);
            } else {
                next.written = true;
                Object[] args = new Object[2 + next.row.length];
                args[0] = task;
                args[1] = scheduleId;
                System.arraycopy(next.row, 0, args, 2, next.row.length);
                Long gone = jdbc.queryForObject(swapSql, Long.class, args);
                cancelled = gone == null ? 0 : gone;
            }
            if (cancelled == 0) {
                log.debug("Deadline {} [{}] already fired or is firing; not cancelled", deadlineName, scheduleId);
            }
        });
    }
}
