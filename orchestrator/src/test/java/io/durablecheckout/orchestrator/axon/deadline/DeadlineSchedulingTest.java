package io.durablecheckout.orchestrator.axon.deadline;

import io.durablecheckout.orchestrator.replay.RecordedInputs;
import io.durablecheckout.orchestrator.config.ScratchDatabase;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.TaskInstanceId;
import io.durablecheckout.orchestrator.checkout.Deadlines;
import io.durablecheckout.orchestrator.checkout.WorkflowPolicy;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.axonframework.common.transaction.NoTransactionManager;
import org.axonframework.deadline.DefaultDeadlineManagerSpanFactory;
import org.axonframework.deadline.dbscheduler.DbSchedulerBinaryDeadlineDetails;
import org.axonframework.deadline.dbscheduler.DbSchedulerDeadlineManager;
import org.axonframework.modelling.command.AggregateScopeDescriptor;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.json.JacksonSerializer;
import org.axonframework.tracing.NoOpSpanFactory;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;

import java.util.Set;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the product adds to db-scheduler, on a real scheduler and real PostgreSQL with the product's scheduled_tasks
 * table: a deadline whose execution fails runs again within seconds (the task underneath keeps db-scheduler's
 * one-time default, retry in 5 minutes, as Axon's deadline task does), and the lag of an execution is measured from
 * its due time. And the two statements the deadline manager writes itself (decision 54): a lease deadline's row is
 * the one Axon's own schedule writes, and a cancel removes a waiting row but leaves a firing one alone.
 */
class DeadlineSchedulingTest {

    static ScratchDatabase database;
    static PGSimpleDataSource dataSource;

    @BeforeAll
    static void database() throws Exception {
        database = ScratchDatabase.start("retry", "/db/migration/core/V2__db_scheduler.sql");
        dataSource = database.dataSource();
    }

    @AfterAll
    static void stop() throws Exception {
        database.close();
    }

    @Test
    void aFailedExecutionRunsAgainWithinSecondsNotMinutes() {
        List<Instant> attempts = new CopyOnWriteArrayList<>();
        OneTimeTask<Void> failsOnce = Tasks.oneTime("fails-once").execute((instance, context) -> {
            attempts.add(Instant.now());
            if (attempts.size() == 1) {
                throw new IllegalStateException("lost a race with another node");
            }
        });
        Scheduler scheduler = Scheduler.create(dataSource,
                        new PromptRetryTask<>(failsOnce,
                                failures -> WorkflowPolicy.backoff(Duration.ofMillis(500), Duration.ofSeconds(30), failures)))
                .tableName("scheduled_tasks").pollingInterval(Duration.ofMillis(100)).threads(1).build();
        scheduler.start();
        try {
            scheduler.schedule(failsOnce.instance("d-1"), Instant.now());

            await().atMost(Duration.ofSeconds(10)).until(() -> attempts.size() == 2);
            assertThat(Duration.between(attempts.get(0), attempts.get(1))).isLessThan(Duration.ofSeconds(3));
            await().atMost(Duration.ofSeconds(5)).until(() -> new JdbcTemplate(dataSource).queryForObject(
                    "SELECT count(*) FROM scheduled_tasks WHERE task_name = 'fails-once'", Long.class) == 0);
        } finally {
            scheduler.stop();
        }
    }

    @Test
    void theLagOfAnExecutionIsMeasuredFromItsDueTime() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        List<Instant> ran = new CopyOnWriteArrayList<>();
        OneTimeTask<Void> task = Tasks.oneTime("overdue").execute((instance, context) -> ran.add(Instant.now()));
        Scheduler scheduler = Scheduler.create(dataSource, task).tableName("scheduled_tasks")
                .pollingInterval(Duration.ofMillis(100)).threads(1)
                .addExecutionInterceptor(new DeadlineLagInterceptor(meters, Clock.systemUTC())).build();
        scheduler.start();
        try {
            scheduler.schedule(task.instance("late-1"), Instant.now().minusSeconds(2)); // due two seconds ago

            await().atMost(Duration.ofSeconds(10)).until(() -> ran.size() == 1);
            Timer lag = meters.find("checkout.deadline.lag").tag("deadline", "overdue").timer();
            assertThat(lag).isNotNull();
            assertThat(lag.count()).isEqualTo(1);
            assertThat(lag.totalTime(TimeUnit.MILLISECONDS)).isBetween(2_000.0, 10_000.0);
        } finally {
            scheduler.stop();
        }
    }

    @Test
    void aLeaseDeadlineIsWrittenAsAxonWouldAndACancelLeavesAFiringOneAlone() {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        Serializer serializer = JacksonSerializer.defaultSerializer();
        Scheduler scheduler = unstartedScheduler();
        LeaseDeadlineManager manager = leaseManager(scheduler, dataSource, serializer);
        AggregateScopeDescriptor scope = new AggregateScopeDescriptor("Checkout", "c-54");
        Instant due = Instant.now().plusSeconds(60).truncatedTo(ChronoUnit.MILLIS);

        String lease = manager.schedule(due, Deadlines.LEASE_EXPIRED, "lease-payload", scope); // one INSERT
        String byAxon = manager.schedule(due, "other", "lease-payload", scope);                // Axon's schedule
        String columns = "SELECT task_name, execution_time, picked, picked_by, version, priority, consecutive_failures,"
                + " last_heartbeat FROM scheduled_tasks WHERE task_instance = ?";
        Map<String, Object> row = jdbc.queryForMap(columns, lease);
        assertThat(row).isEqualTo(jdbc.queryForMap(columns, byAxon));
        assertThat(((java.sql.Timestamp) row.get("execution_time")).toInstant()).isEqualTo(due);
        DbSchedulerBinaryDeadlineDetails mine = details(scheduler, lease);
        DbSchedulerBinaryDeadlineDetails axons = details(scheduler, byAxon);
        assertThat(mine.getD()).isEqualTo(Deadlines.LEASE_EXPIRED);
        assertThat(mine.asDeadLineMessage(serializer).getPayload()).isEqualTo("lease-payload");
        assertThat(mine.getDeserializedScopeDescriptor(serializer)).isEqualTo(scope);
        assertThat(List.of(mine.getSc(), mine.getPc(), String.valueOf(mine.getR()), new String(mine.getS()),
                new String(mine.getP()), new String(mine.getM()))).isEqualTo(List.of(axons.getSc(), axons.getPc(),
                String.valueOf(axons.getR()), new String(axons.getS()), new String(axons.getP()),
                new String(axons.getM())));

        manager.cancelSchedule(Deadlines.LEASE_EXPIRED, lease);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM scheduled_tasks WHERE task_instance = ?", Long.class, lease))
                .isZero();
        jdbc.update("UPDATE scheduled_tasks SET picked = true, picked_by = 'node-b' WHERE task_instance = ?", byAxon);
        manager.cancelSchedule("other", byAxon);   // firing on another node: left alone, not an error (decision 2)
        manager.cancelSchedule("other", "no-such-deadline");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM scheduled_tasks WHERE task_instance = ?", Long.class, byAxon))
                .isEqualTo(1);
        jdbc.update("DELETE FROM scheduled_tasks WHERE task_instance = ?", byAxon);
    }

    /**
     * Decision 79: a lease handed on (cancel, then schedule, in one unit of work) is one statement; the rows come out
     * as the two statements left them, a firing row is still left alone, and a lease cancelled in the unit of work
     * that scheduled it is never left behind.
     */
    @Test
    void aCancelAndTheNextLeaseOfOneUnitOfWorkAreOneStatement() {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        Serializer serializer = JacksonSerializer.defaultSerializer();
        java.util.concurrent.atomic.AtomicInteger statements = new java.util.concurrent.atomic.AtomicInteger();
        javax.sql.DataSource counting = countingStatements(statements);
        Scheduler scheduler = unstartedScheduler();
        LeaseDeadlineManager manager = leaseManager(scheduler, counting, serializer);
        AggregateScopeDescriptor scope = new AggregateScopeDescriptor("Checkout", "c-79");
        Instant due = Instant.now().plusSeconds(60).truncatedTo(ChronoUnit.MILLIS);
        String count = "SELECT count(*) FROM scheduled_tasks WHERE task_instance = ?";

        String first = manager.schedule(due, Deadlines.LEASE_EXPIRED, "reserve", scope);
        String[] second = new String[1];
        statements.set(0);
        inUnitOfWork(() -> {
            manager.cancelSchedule(Deadlines.LEASE_EXPIRED, first);
            second[0] = manager.schedule(due.plusSeconds(1), Deadlines.LEASE_EXPIRED, "authorize", scope);
        });
        assertThat(statements.get()).as("the cancel and the next lease in one statement").isEqualTo(1);
        assertThat(jdbc.queryForObject(count, Long.class, first)).isZero();
        assertThat(jdbc.queryForObject(count, Long.class, second[0])).isEqualTo(1);
        DbSchedulerBinaryDeadlineDetails written = details(scheduler, second[0]);
        assertThat(written.asDeadLineMessage(serializer).getPayload()).isEqualTo("authorize");
        assertThat(jdbc.queryForObject("SELECT execution_time FROM scheduled_tasks WHERE task_instance = ?",
                java.sql.Timestamp.class, second[0]).toInstant()).isEqualTo(due.plusSeconds(1));

        // the lease being handed on is firing elsewhere: left alone, the next one written all the same
        jdbc.update("UPDATE scheduled_tasks SET picked = true, picked_by = 'node-b' WHERE task_instance = ?", second[0]);
        String[] third = new String[1];
        inUnitOfWork(() -> {
            manager.cancelSchedule(Deadlines.LEASE_EXPIRED, second[0]);
            third[0] = manager.schedule(due.plusSeconds(2), Deadlines.LEASE_EXPIRED, "receipt", scope);
        });
        assertThat(jdbc.queryForObject(count, Long.class, second[0])).isEqualTo(1);
        assertThat(jdbc.queryForObject(count, Long.class, third[0])).isEqualTo(1);

        // scheduled and cancelled in one unit of work: nothing left
        String[] fourth = new String[1];
        inUnitOfWork(() -> {
            fourth[0] = manager.schedule(due, Deadlines.LEASE_EXPIRED, "gone", scope);
            manager.cancelSchedule(Deadlines.LEASE_EXPIRED, fourth[0]);
        });
        assertThat(jdbc.queryForObject(count, Long.class, fourth[0])).isZero();
        jdbc.update("DELETE FROM scheduled_tasks WHERE task_instance IN (?, ?)", second[0], third[0]);
    }

    /**
     * Decision 88: the commands a saga sends inside its batch are nested units of work; their leases and cancels are
     * written when the batch (the root) commits, one JDBC batch per kind of statement, not at each command's commit.
     * A command that rolls back leaves nothing: neither its lease nor its cancel.
     */
    @Test
    void theCommandsOfOneBatchWriteTheirLeasesAtTheBatchsCommitInOneStatementPerKind() {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        Serializer serializer = JacksonSerializer.defaultSerializer();
        java.util.concurrent.atomic.AtomicInteger statements = new java.util.concurrent.atomic.AtomicInteger();
        Scheduler scheduler = unstartedScheduler();
        LeaseDeadlineManager manager = leaseManager(scheduler, countingStatements(statements), serializer);
        AggregateScopeDescriptor scope = new AggregateScopeDescriptor("Checkout", "c-88");
        Instant due = Instant.now().plusSeconds(60).truncatedTo(ChronoUnit.MILLIS);
        String count = "SELECT count(*) FROM scheduled_tasks WHERE task_instance = ?";
        List<String> current = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            current.add(manager.schedule(due, Deadlines.LEASE_EXPIRED, "reserve-" + i, scope));
        }
        String[] next = new String[4];
        String[] rolledBack = new String[1];
        long[] writtenBeforeTheBatchCommitted = new long[1];
        statements.set(0);
        inUnitOfWork(() -> {
            for (int i = 0; i < 4; i++) {
                int command = i;
                inUnitOfWork(() -> {   // a lease handed on: cancel, then the next step's lease
                    manager.cancelSchedule(Deadlines.LEASE_EXPIRED, current.get(command));
                    next[command] = manager.schedule(due.plusSeconds(1), Deadlines.LEASE_EXPIRED, "next-" + command,
                            scope);
                });
            }
            inUnitOfWork(() -> manager.cancelSchedule(Deadlines.LEASE_EXPIRED, current.get(4)));
            try {
                inUnitOfWork(() -> {   // a command that fails after deciding: rolled back, it writes nothing
                    manager.cancelSchedule(Deadlines.LEASE_EXPIRED, next[0]);
                    rolledBack[0] = manager.schedule(due, Deadlines.LEASE_EXPIRED, "refused", scope);
                    throw new IllegalStateException("refused");
                });
            } catch (IllegalStateException expected) {
                // the saga carries on with the rest of its batch
            }
            writtenBeforeTheBatchCommitted[0] = statements.get();
        });
        assertThat(writtenBeforeTheBatchCommitted[0]).as("nothing written before the batch commits").isZero();
        assertThat(statements.get()).as("four swaps in one batch, one cancel").isEqualTo(2);
        for (int i = 0; i < 4; i++) {
            assertThat(jdbc.queryForObject(count, Long.class, current.get(i))).isZero();
            assertThat(jdbc.queryForObject(count, Long.class, next[i])).isEqualTo(1);
            assertThat(details(scheduler, next[i]).asDeadLineMessage(serializer).getPayload()).isEqualTo("next-" + i);
        }
        assertThat(jdbc.queryForObject(count, Long.class, current.get(4))).isZero();
        assertThat(jdbc.queryForObject(count, Long.class, rolledBack[0])).isZero();
        for (String id : next) {
            jdbc.update("DELETE FROM scheduled_tasks WHERE task_instance = ?", id);
        }
    }

    /** A DataSource whose connections count the statements prepared on them. */
    private javax.sql.DataSource countingStatements(java.util.concurrent.atomic.AtomicInteger statements) {
        return (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[]{javax.sql.DataSource.class}, (proxy, method, args) -> {
                    Object result = method.invoke(dataSource, args);
                    if (!"getConnection".equals(method.getName())) return result;
                    java.sql.Connection connection = (java.sql.Connection) result;
                    return java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                            new Class<?>[]{java.sql.Connection.class}, (p2, m2, a2) -> {
                                if (m2.getName().startsWith("prepare") || m2.getName().equals("createStatement")) {
                                    statements.incrementAndGet();
                                }
                                return m2.invoke(connection, a2);
                            });
                });
    }

    /**
     * Decision 83: a deadline scheduled while a command is handled keeps the command's origin in its metadata, not the
     * input recorded for the command's events (most of the row's bytes, and nothing reads it from a deadline), by
     * either path: the lease's own INSERT and Axon's schedule.
     */
    @Test
    void aDeadlineKeepsItsOriginButNotTheRecordedInput() {
        Serializer serializer = JacksonSerializer.defaultSerializer();
        Scheduler scheduler = unstartedScheduler();
        LeaseDeadlineManager manager = leaseManager(scheduler, dataSource, serializer);
        AggregateScopeDescriptor scope = new AggregateScopeDescriptor("Checkout", "c-83");
        Instant due = Instant.now().plusSeconds(60);
        String[] ids = new String[2];
        org.axonframework.messaging.unitofwork.UnitOfWork<?> unitOfWork =
                org.axonframework.messaging.unitofwork.DefaultUnitOfWork.startAndGet(
                        org.axonframework.commandhandling.GenericCommandMessage.asCommandMessage("a command"));
        unitOfWork.registerCorrelationDataProvider(message -> Map.of("traceId", "trace-83",
                io.durablecheckout.orchestrator.replay.RecordedInputs.INPUT, Map.of("id", "input-83",
                        "payload", Map.of("lines", "a long command")),
                io.durablecheckout.orchestrator.replay.RecordedInputs.DEADLINES, List.of(Map.of("op", "cancel"))));
        unitOfWork.execute(() -> {
            ids[0] = manager.schedule(due, Deadlines.LEASE_EXPIRED, "lease", scope);
            ids[1] = manager.schedule(due, Deadlines.RETRY_DUE, "retry", scope);
        });
        for (String id : ids) {
            org.axonframework.messaging.MetaData stored = details(scheduler, id).asDeadLineMessage(serializer)
                    .getMetaData();
            assertThat(stored).containsEntry("traceId", "trace-83")
                    .doesNotContainKeys(io.durablecheckout.orchestrator.replay.RecordedInputs.INPUT,
                            io.durablecheckout.orchestrator.replay.RecordedInputs.DEADLINES);
        }
        new JdbcTemplate(dataSource).update("DELETE FROM scheduled_tasks WHERE task_instance IN (?, ?)", ids[0], ids[1]);
    }

    /** A scheduler never started: only reads and Axon's own schedule use it. */
    private static Scheduler unstartedScheduler() {
        return Scheduler.create(dataSource, DbSchedulerDeadlineManager.binaryTask(() -> null))
                .tableName("scheduled_tasks").build();
    }

    private static LeaseDeadlineManager leaseManager(Scheduler scheduler, javax.sql.DataSource writes,
                                                     Serializer serializer) {
        return new LeaseDeadlineManager(DbSchedulerDeadlineManager.builder()
                .scheduler(scheduler).scopeAwareProvider(scope -> Stream.empty())
                .transactionManager(NoTransactionManager.INSTANCE).startScheduler(false).stopScheduler(false),
                writes, "scheduled_tasks", serializer,
                DefaultDeadlineManagerSpanFactory.builder().spanFactory(NoOpSpanFactory.INSTANCE).build(),
                Set.of(Deadlines.LEASE_EXPIRED), RecordedInputs.DEADLINE_OBSERVER);
    }

    private static void inUnitOfWork(Runnable work) {
        org.axonframework.messaging.unitofwork.DefaultUnitOfWork.startAndGet(null).execute(work);
    }

    private static DbSchedulerBinaryDeadlineDetails details(Scheduler scheduler, String id) {
        return (DbSchedulerBinaryDeadlineDetails) scheduler.getScheduledExecution(TaskInstanceId.of("AxonDeadline", id))
                .orElseThrow().getData();
    }

    @Test
    void theDelayDoublesUpToItsCeiling() {
        Duration initial = Duration.ofSeconds(1);
        Duration max = Duration.ofSeconds(30);
        assertThat(WorkflowPolicy.backoff(initial, max, 1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(WorkflowPolicy.backoff(initial, max, 2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(WorkflowPolicy.backoff(initial, max, 5)).isEqualTo(Duration.ofSeconds(16));
        assertThat(WorkflowPolicy.backoff(initial, max, 6)).isEqualTo(Duration.ofSeconds(30));
        assertThat(WorkflowPolicy.backoff(initial, max, 1_001)).isEqualTo(Duration.ofSeconds(30));
    }
}
