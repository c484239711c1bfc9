package io.durablecheckout.orchestrator.axon.deadline;

import com.github.kagkarlsson.scheduler.boot.config.DbSchedulerConfigurationSupport;
import org.axonframework.common.IdentifierFactory;
import org.axonframework.deadline.DeadlineManagerSpanFactory;
import org.axonframework.deadline.DeadlineMessage;
import org.axonframework.deadline.GenericDeadlineMessage;
import org.axonframework.deadline.dbscheduler.DbSchedulerBinaryDeadlineDetails;
import org.axonframework.deadline.dbscheduler.DbSchedulerDeadlineManager;
import org.axonframework.deadline.dbscheduler.DbSchedulerDeadlineToken;
import org.axonframework.messaging.ScopeDescriptor;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

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
 * Both statements run on the unit of work's connection, in its transaction, so a deadline is written and removed
 * atomically with the events of the command that decided it (decision 1): at the prepare commit of the root unit of
 * work, which a committed command inside a saga batch hands them to, so a batch writes its leases in at most three
 * round trips, not one per command (decision 88). A cancel and a lease of the same root (a lease handed to the next
 * step) are one statement: the fresh row moves earlier, which nothing can notice, since nothing else knows its id yet
 * (decision 79); a lease cancelled where it was scheduled is never written. It also tells
 * its {@link DeadlineObserver} what was scheduled and cancelled (the product records it so replay can compare it),
 * and lets the observer strip from the deadline's own metadata what must not travel with it (decision 83).
 */
public class LeaseDeadlineManager extends DbSchedulerDeadlineManager {

    private static final Logger log = LoggerFactory.getLogger(LeaseDeadlineManager.class);

    private final JdbcTemplate jdbc;
    private final Serializer serializer;
    private final DeadlineManagerSpanFactory spanFactory;
    private final String insertSql;
    private final String cancelSql;
    private final DeadlineObserver observer;
    private final Set<String> insertedDirectly;

    /**
     * @param dataSource the one Spring's transaction manager binds (statements join the unit of work's transaction)
     * @param table      db-scheduler's table
     * @param insertedDirectly the deadline names written with one INSERT (the frequent lease deadlines, never due at once)
     * @param observer   told of every schedule and cancel
     */
    public LeaseDeadlineManager(DbSchedulerDeadlineManager.Builder builder, DataSource dataSource, String table,
                                Serializer serializer, DeadlineManagerSpanFactory spanFactory,
                                Set<String> insertedDirectly, DeadlineObserver observer) {
        super(builder.serializer(serializer).spanFactory(spanFactory)); // the same two this class uses
        this.jdbc = new JdbcTemplate(dataSource);
        this.serializer = serializer;
        this.spanFactory = spanFactory;
        this.insertedDirectly = Set.copyOf(insertedDirectly);
        this.observer = observer;
        // the columns and values of db-scheduler's JdbcTaskRepository insert (priority unused: null, as there)
        this.insertSql = "INSERT INTO " + table + " (task_name, task_instance, task_data, execution_time, picked, version)"
                + " VALUES (?, ?, ?, ?, false, 1)";
        this.cancelSql = "DELETE FROM " + table + " WHERE task_name = ? AND task_instance = ? AND NOT picked";
        // the INSERT in the WITH, so the statement's count is the DELETE's: a batch reports what each cancel removed
        this.swapSql = "WITH fresh AS (" + insertSql + ") " + cancelSql;
    }

    private final String swapSql;
    private static final String PENDING = LeaseDeadlineManager.class.getName() + ".pending";

    /**
     * The lease rows to insert and the deadlines to cancel of one unit of work. A nested unit of work (a command the
     * saga sends inside its batch) hands them to its parent when it commits, as Axon does with events, and drops them
     * when it rolls back; the root writes them all at its prepare commit, in at most three round trips (decision 88).
     */
    private static final class Pending {
        /** task_name, task_instance, task_data, execution_time: the columns of {@link #insertSql}. */
        final List<Object[]> inserts = new ArrayList<>();
        /** task_name, task_instance, deadline name (for the log only). */
        final List<String[]> cancels = new ArrayList<>();

        void addAll(Pending other) {
            inserts.addAll(other.inserts);
            cancels.addAll(other.cancels);
        }
    }

    /** Runs {@code op} on the pending writes of the current unit of work, or writes at once outside one. */
    private void defer(Consumer<Pending> op) {
        if (CurrentUnitOfWork.isStarted()
                && CurrentUnitOfWork.get().phase().isBefore(UnitOfWork.Phase.PREPARE_COMMIT)) {
            op.accept(pendingOf(CurrentUnitOfWork.get()));
        } else {
            Pending now = new Pending();
            op.accept(now);
            write(now);
        }
    }

    private Pending pendingOf(UnitOfWork<?> unitOfWork) {
        return unitOfWork.getOrComputeResource(PENDING, key -> {
            Pending pending = new Pending();
            unitOfWork.onPrepareCommit(u -> {
                UnitOfWork<?> parent = u.parent().orElse(null);
                if (parent != null && parent.phase().isBefore(UnitOfWork.Phase.PREPARE_COMMIT)) {
                    pendingOf(parent).addAll(pending);
                } else {
                    write(pending);
                }
            });
            return pending;
        });
    }

    /**
     * Writes a unit of work's leases and cancels: a deadline scheduled and cancelled in it never gets a row; each
     * cancel is paired with a lease into one statement (a lease handed on, decision 79); each kind of statement is
     * one JDBC batch, one round trip however many rows it has.
     */
    private void write(Pending pending) {
        Set<String> cancelled = new HashSet<>();
        pending.cancels.forEach(c -> cancelled.add(c[1]));
        Set<String> inserted = new HashSet<>();
        List<Object[]> inserts = new ArrayList<>();
        for (Object[] row : pending.inserts) {
            inserted.add((String) row[1]);
            if (!cancelled.contains((String) row[1])) {
                inserts.add(row);
            }
        }
        List<String[]> cancels = pending.cancels.stream().filter(c -> !inserted.contains(c[1])).toList();
        int pairs = Math.min(inserts.size(), cancels.size());
        List<Object[]> swaps = new ArrayList<>(pairs);
        for (int i = 0; i < pairs; i++) {
            Object[] row = inserts.get(i);
            swaps.add(new Object[]{row[0], row[1], row[2], row[3], cancels.get(i)[0], cancels.get(i)[1]});
        }
        logNotCancelled(cancels.subList(0, pairs), batch(swapSql, swaps));
        logNotCancelled(cancels.subList(pairs, cancels.size()), batch(cancelSql, cancels.subList(pairs, cancels.size())
                .stream().map(c -> new Object[]{c[0], c[1]}).toList()));
        batch(insertSql, inserts.subList(pairs, inserts.size()));
    }

    private int[] batch(String sql, List<Object[]> rows) {
        if (rows.isEmpty()) {
            return new int[0];
        }
        return rows.size() == 1 ? new int[]{jdbc.update(sql, rows.get(0))} : jdbc.batchUpdate(sql, rows);
    }

    private static void logNotCancelled(List<String[]> cancels, int[] deleted) {
        for (int i = 0; i < cancels.size() && i < deleted.length; i++) {
            if (deleted[i] == 0) {
                log.debug("Deadline {} [{}] already fired or is firing; not cancelled", cancels.get(i)[2],
                        cancels.get(i)[1]);
            }
        }
    }

    @Nonnull
    @Override
    public String schedule(@Nonnull Instant triggerDateTime, @Nonnull String deadlineName,
                           @Nullable Object messageOrPayload, @Nonnull ScopeDescriptor deadlineScope) {
        String id = insertedDirectly.contains(deadlineName) && triggerDateTime.isAfter(Instant.now())
                ? insert(triggerDateTime, deadlineName, messageOrPayload, deadlineScope)
                : super.schedule(triggerDateTime, deadlineName, messageOrPayload, deadlineScope);
        if (messageOrPayload != null) {
            observer.scheduled(id, triggerDateTime, deadlineName, messageOrPayload, deadlineScope);
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
        return super.processDispatchInterceptors(observer.strip(message));
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
        Object[] row = {new DbSchedulerDeadlineToken(id).getTaskName(), id,
                DbSchedulerConfigurationSupport.SPRING_JAVA_SERIALIZER.serialize(details), Timestamp.from(triggerDateTime)};
        spanFactory.createScheduleSpan(deadlineName, id, message).run(() -> defer(pending -> pending.inserts.add(row)));
        return id;
    }

    @Override
    public void cancelSchedule(@Nonnull String deadlineName, @Nonnull String scheduleId) {
        observer.cancelled(deadlineName, scheduleId);
        String task = new DbSchedulerDeadlineToken(scheduleId).getTaskName();
        defer(pending -> pending.cancels.add(new String[]{task, scheduleId, deadlineName}));
    }
}
