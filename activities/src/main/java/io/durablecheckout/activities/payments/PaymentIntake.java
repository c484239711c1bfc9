package io.durablecheckout.activities.payments;

import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.PaymentAuthorizationRequestedEvent;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.messaging.GenericMessage;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.messaging.unitofwork.BatchingUnitOfWork;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The payments worker's durable intake (decision 132): fair queuing per tenant instead of the processor's one FIFO.
 * Inside a processor's batch the payments handler only inserts the intent's row ({@code payment_intake}, in the
 * batch's transaction, so the row exists exactly when the processor has passed the intent) and the processor moves
 * on. {@code checkout.payments.max-concurrent-calls} drainer threads take rows, round robin over the tenants with rows
 * ready (the tenant this node served least recently first), {@code FOR UPDATE SKIP LOCKED}, holding the row's lock
 * through the call and deleting the row in the call's own unit of work and transaction: resource row, result events
 * and the row's removal commit together; a node lost mid-call releases the lock and another drainer takes the row.
 * A checkout's row waits while an earlier row of it is queued or running, so one checkout's work keeps its order.
 * Inside a tenant, checkouts already under way go first: their captures, lookups and compensations before new
 * authorizations ({@link #rank}).
 * <p>
 * Lease rule 2 reads the intake: a row still here is an intent its worker has not passed (the deadline defers). A
 * failed call is judged by {@link Parking}: the database's trouble is retried from the intake with back-off (1 s
 * doubling to 30 s), anything else is parked in the payments processor's dead-letter queue, where operators see and
 * retry parked events, and the row removed. Drainers wake on a local insert's commit, on another drainer's take, or
 * on a short poll (nodes share the table).
 */
public final class PaymentIntake implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PaymentIntake.class);

    /** Where failed calls are parked, where operators see them (the payments processor's dead-letter queue). */
    public interface Parking {

        /** Parks a failed call (true; the row is then removed), or leaves it to be retried from the intake (false). */
        boolean park(EventMessage<?> intent, Throwable failure);

        /**
         * Parks the intent behind its checkout's parked events, if it has any (true: no call, the row is removed), as
         * the processor would: a checkout's later events wait behind a parked one.
         */
        boolean parkBehind(EventMessage<?> intent);

        /**
         * A SQL condition on an intake row's {@code checkout_id}, true if its checkout may have parked events: asked
         * in the claim's own statement, so that {@link #parkBehind} (a query of its own) runs only for those. Null:
         * {@link #parkBehind} is asked for every row.
         */
        default String parkedCondition() {
            return null;
        }

        /** A parking made of its two decisions (the application's dead-letter queue, which this module does not know). */
        static Parking of(java.util.function.BiPredicate<EventMessage<?>, Throwable> park,
                          java.util.function.Predicate<EventMessage<?>> behind) {
            return of(park, behind, null);
        }

        /** @param parkedCondition see {@link #parkedCondition()} */
        static Parking of(java.util.function.BiPredicate<EventMessage<?>, Throwable> park,
                          java.util.function.Predicate<EventMessage<?>> behind, String parkedCondition) {
            return new Parking() {
                @Override
                public String parkedCondition() {
                    return parkedCondition;
                }

                @Override
                public boolean park(EventMessage<?> intent, Throwable failure) {
                    return park.test(intent, failure);
                }

                @Override
                public boolean parkBehind(EventMessage<?> intent) {
                    return behind.test(intent);
                }
            };
        }

        /** Nothing parked: a failed call is retried from the intake. */
        Parking NONE = new Parking() {
            @Override
            public boolean park(EventMessage<?> intent, Throwable failure) {
                return false;
            }

            @Override
            public boolean parkBehind(EventMessage<?> intent) {
                return false;
            }
        };
    }

    /** A queued row. */
    record Row(long id, String tenant, String checkout, long sequenceNumber, int attempts, boolean mayBeParked) {
    }

    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    // Usually one statement per take (decision 140): tenants with rows are known from this node's own inserts and a
    // look at the table at most once a poll interval; the claim reads one tenant's rows by its index (a checkout's head
    // row only: no earlier row of it queued or running; locked rows skipped) and deletes the row it takes: the delete
    // holds the lock through the call and commits with its outcome, a rollback puts the row back, and other sessions
    // still see the row meanwhile (lease rule 2's "not passed" holds). Its answer also says whether the checkout may
    // have parked events (the parking's condition), so the dead-letter queue is asked only then.
    private static final String TENANTS_READY =
            "SELECT DISTINCT tenant_id FROM payment_intake WHERE not_before <= now()";
    private static final String CLAIM = "DELETE FROM payment_intake WHERE id = (SELECT id"
            + " FROM payment_intake i WHERE tenant_id = ? AND not_before <= now()"
            + " AND NOT EXISTS (SELECT 1 FROM payment_intake e"
            + "   WHERE e.checkout_id = i.checkout_id AND e.sequence_number < i.sequence_number)"
            + " AND id <> ALL (?) ORDER BY rank, id LIMIT 1 FOR UPDATE SKIP LOCKED)"
            + " RETURNING id, tenant_id, checkout_id, sequence_number, attempts, ";

    private final JdbcTemplate jdbc;
    private final TransactionManager transactions;
    private final Supplier<List<CorrelationDataProvider>> correlation;
    private final BiFunction<String, Long, DomainEventMessage<?>> events;
    private final Supplier<Parking> parking;
    private final int drainers;
    private final Duration poll;
    private final String batchKey = PaymentIntake.class.getName() + "#" + System.identityHashCode(this);

    private final Map<String, Long> lastServed = new ConcurrentHashMap<>();
    /** Calls in flight on this node per tenant, and how many one tenant may hold (the rest kept for the others). */
    private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final int perTenant;
    /** Rows whose call failed, between its rollback (the lock released) and its back-off written: not taken again. */
    private final java.util.Set<Long> failing = ConcurrentHashMap.newKeySet();
    private final AtomicLong served = new AtomicLong();
    /** Rows this node inserted that no drainer here has taken yet, as far as it knows: whether to look again. */
    private final AtomicLong pending = new AtomicLong();
    /** Tenants that may have rows ready: queued for here, or found by the last look at the table. */
    private final java.util.Set<String> withRows = ConcurrentHashMap.newKeySet();
    /** Commits of batches that queued rows here: a tenant found empty is forgotten only if none came meanwhile. */
    private final AtomicLong enqueued = new AtomicLong();
    private final AtomicLong lookedAt = new AtomicLong();
    /** Drainers between the start and the end of a claim: each may take one of the pending rows. */
    private final AtomicInteger searching = new AtomicInteger();
    /** The intents this node queued, until a drainer here takes them: no read of the event store back. */
    private final Map<String, DomainEventMessage<?>> queuedHere = new ConcurrentHashMap<>();
    private static final int QUEUED_HERE_MAX = 20_000;
    private final Semaphore signals = new Semaphore(0);
    private final AtomicBoolean scouting = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<Thread> threads = new ArrayList<>();
    private volatile Consumer<EventMessage<?>> work;

    /**
     * @param events   reads a checkout's event back by its sequence number (the event store), null if it has none
     * @param drainers calls in flight at once on this node
     * @param poll     how often an idle node looks for rows other nodes inserted
     */
    public PaymentIntake(JdbcTemplate jdbc, TransactionManager transactions,
                         Supplier<List<CorrelationDataProvider>> correlation,
                         BiFunction<String, Long, DomainEventMessage<?>> events, Supplier<Parking> parking,
                         int drainers, Duration poll) {
        this.jdbc = jdbc;
        this.transactions = transactions;
        this.correlation = correlation;
        this.events = events;
        this.parking = parking;
        this.drainers = Math.max(1, drainers);
        this.perTenant = perTenantLimit(this.drainers);
        this.poll = poll;
        this.lookedAt.set(System.nanoTime() - 2 * poll.toNanos()); // the first drain looks: rows of an earlier run
    }

    /**
     * One tenant may hold all but one in sixteen of the drainers (30 of 32): the rest stay free for another tenant's
     * row, which a drainer then takes at once instead of after a slow provider's call ends (decision 136). Below 16
     * drainers, none is kept back.
     */
    static int perTenantLimit(int drainers) {
        return drainers - drainers / 16;
    }

    /** The worker's dispatch of a drained intent (the payments worker registers itself). */
    public void drainInto(Consumer<EventMessage<?>> work) {
        this.work = work;
    }

    /** Starts the drainers (once the schema is migrated); rows left by an earlier run are taken too. */
    public synchronized void start() {
        if (!threads.isEmpty() || closed.get()) {
            return;
        }
        for (int i = 1; i <= drainers; i++) {
            Thread t = new Thread(this::drainLoop, "payment-intake-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        signals.release();
    }

    /**
     * Whether the intent being handled goes to the intake: inside a processor's batch only (an operator's retry of a
     * parked event, or a test driving the worker, runs the work on its own thread), and only for a domain event.
     */
    public boolean accepts() {
        if (work == null || closed.get() || !CurrentUnitOfWork.isStarted()) {
            return false;
        }
        UnitOfWork<?> uow = CurrentUnitOfWork.get();
        return uow.root() instanceof BatchingUnitOfWork<?> && uow.getMessage() instanceof DomainEventMessage<?>;
    }

    /**
     * Queues the intent being handled, in the batch's transaction: one multi-row insert per batch, just before it
     * commits (issue 48: a batch of the payments processor holds 2–3 intents at C = 32); the drainers hear of the rows
     * once it commits.
     */
    public void enqueue(ActivityIntent intent) {
        UnitOfWork<?> uow = CurrentUnitOfWork.get();
        DomainEventMessage<?> message = (DomainEventMessage<?>) uow.getMessage();
        Map<DomainEventMessage<?>, Queued> batch = uow.root().getOrComputeResource(batchKey, k -> {
            Map<DomainEventMessage<?>, Queued> rows = new java.util.LinkedHashMap<>();
            uow.root().onPrepareCommit(u -> insert(rows.values()));
            uow.root().afterCommit(u -> {
                if (queuedHere.size() + rows.size() > QUEUED_HERE_MAX) {
                    queuedHere.clear(); // rows other nodes took leave entries behind: bounded, read back if missed
                }
                rows.forEach((m, row) -> {
                    queuedHere.put(key(m.getAggregateIdentifier(), m.getSequenceNumber()), m);
                    withRows.add(row.tenant());
                });
                enqueued.incrementAndGet();
                pending.addAndGet(rows.size());
                wake(Math.min(drainers, rows.size()) - signals.availablePermits()); // wake-ups owed already count
            });
            return rows;
        });
        batch.put(message, new Queued(intent.tenantId() == null ? "" : intent.tenantId().value(),
                message.getAggregateIdentifier(), message.getSequenceNumber(), rank(intent)));
    }

    /** A row a batch queues. */
    private record Queued(String tenant, String checkout, long sequenceNumber, int rank) {
    }

    private void insert(java.util.Collection<Queued> rows) {
        if (rows.isEmpty()) {
            return;
        }
        jdbc.update(con -> {
            var statement = con.prepareStatement("INSERT INTO payment_intake (tenant_id, checkout_id, sequence_number,"
                    + " rank) SELECT * FROM unnest(?::text[], ?::text[], ?::bigint[], ?::int[])"
                    + " ON CONFLICT (checkout_id, sequence_number) DO NOTHING");
            statement.setArray(1, con.createArrayOf("text", rows.stream().map(Queued::tenant).toArray()));
            statement.setArray(2, con.createArrayOf("text", rows.stream().map(Queued::checkout).toArray()));
            statement.setArray(3, con.createArrayOf("bigint", rows.stream().map(Queued::sequenceNumber).toArray()));
            statement.setArray(4, con.createArrayOf("integer", rows.stream().map(Queued::rank).toArray()));
            return statement;
        });
    }

    private static String key(String checkout, long sequenceNumber) {
        return checkout + "#" + sequenceNumber;
    }

    /**
     * A new checkout's authorization waits behind the work of checkouts already under way (capture, lookup, void,
     * refund: 0 before 1), so a flood of new checkouts does not hold back the calls that finish or unwind the
     * accepted ones (decision 136).
     */
    static int rank(ActivityIntent intent) {
        return intent instanceof PaymentAuthorizationRequestedEvent ? 1 : 0;
    }

    /**
     * Whether event {@code sequenceNumber} of {@code checkoutId} is still in the intake, queued or in a call: an
     * intent its worker has not passed (lease rule 2 reads it; static, for a process that runs no payments).
     */
    public static boolean holds(JdbcTemplate jdbc, String checkoutId, long sequenceNumber) {
        return Boolean.TRUE.equals(jdbc.queryForObject("SELECT EXISTS (SELECT 1 FROM payment_intake"
                + " WHERE checkout_id = ? AND sequence_number = ?)", Boolean.class, checkoutId, sequenceNumber));
    }

    /** Rows queued or in a call. */
    public long queued() {
        Long n = jdbc.queryForObject("SELECT count(*) FROM payment_intake", Long.class);
        return n == null ? 0 : n;
    }

    private void wake(int n) {
        if (n > 0 && signals.availablePermits() < drainers) {
            signals.release(n);
        }
    }

    private void drainLoop() {
        while (!closed.get()) {
            boolean took;
            try {
                took = drainOne();
            } catch (RuntimeException | Error e) {
                took = false;
                if (!closed.get()) {
                    log.warn("Payment intake: a drain failed outside a call: {}", e.toString());
                }
            }
            // after a call, look again only while rows are known to wait (else a signal or the scout's poll wakes it)
            if (!took || (pending.get() == 0 && !lastTakeForeign.get())) {
                idle();
            }
        }
    }

    /** Whether this drainer's last row was queued by another node: then it keeps looking, as that node's rows may. */
    private final ThreadLocal<Boolean> lastTakeForeign = ThreadLocal.withInitial(() -> false);

    /** Waits for a signal; one idle drainer at a time polls, the others wait for a signal (or a long while). */
    private void idle() {
        boolean scout = scouting.compareAndSet(false, true);
        try {
            signals.tryAcquire(scout ? poll.toMillis() : poll.toMillis() * 20, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed.set(true);
        } finally {
            if (scout) {
                scouting.set(false);
            }
        }
    }

    /** The claim, with the parking's condition (whether the row's checkout may have parked events) in its answer. */
    private String claimSql() {
        String sql = claimSql;
        if (sql == null) {
            String condition = parking.get().parkedCondition();
            sql = CLAIM + (condition == null ? "true" : "(" + condition + ")");
            claimSql = sql;
        }
        return sql;
    }

    private volatile String claimSql;

    /** Takes one row, fairly across tenants, and runs its call; false if no row was ready. */
    boolean drainOne() {
        Consumer<EventMessage<?>> dispatch = work;
        if (dispatch == null) {
            return false;
        }
        long now = System.nanoTime();
        long looked = lookedAt.get();
        if (now - looked >= poll.toNanos() && lookedAt.compareAndSet(looked, now)) {
            withRows.addAll(jdbc.queryForList(TENANTS_READY, String.class)); // rows other nodes queued, or retries due
        }
        List<String> order = new ArrayList<>(withRows);
        if (order.isEmpty()) {
            pending.set(0);
            return false;
        }
        // never served here first, then the tenant served least recently
        order.sort(Comparator.comparingLong(t -> lastServed.getOrDefault(t, 0L)));
        java.util.concurrent.atomic.AtomicBoolean sawFull = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicReference<Row> taken = new AtomicReference<>();
        AtomicReference<EventMessage<?>> intent = new AtomicReference<>();
        long pendingSeen = pending.get();
        DefaultUnitOfWork<Message<?>> unitOfWork = DefaultUnitOfWork.startAndGet(
                new GenericMessage<>("payment intake"));
        if (transactions != null) {
            unitOfWork.attachTransaction(transactions);
        }
        for (CorrelationDataProvider provider : correlation.get()) {
            unitOfWork.registerCorrelationDataProvider(provider);
        }
        try {
            unitOfWork.execute(() -> {
                Row row;
                searching.incrementAndGet();
                try {
                    row = claim(order, sawFull);
                } finally {
                    searching.decrementAndGet();
                }
                if (row == null) {
                    if (!sawFull.get()) {
                        pending.compareAndSet(pendingSeen, 0); // nothing to take: stop looking until told of new rows
                    } // else rows of a tenant at its share may wait: a drainer ending that tenant's call looks again
                    return;
                }
                taken.set(row);
                // rollback handlers run in reverse order: this one before the transaction's releases the row's lock
                CurrentUnitOfWork.get().onRollback(u -> failing.add(row.id()));
                lastServed.put(row.tenant(), served.incrementAndGet());
                DomainEventMessage<?> message = queuedHere.remove(key(row.checkout(), row.sequenceNumber()));
                boolean foreign = message == null; // queued by another node (or before this one started)
                lastTakeForeign.set(foreign);
                long left = pending.updateAndGet(p -> Math.max(0, p - 1));
                if (foreign || left > searching.get() + signals.availablePermits()) {
                    wake(1); // another idle drainer looks for the next row while this one calls
                }
                if (message == null) {
                    message = events.apply(row.checkout(), row.sequenceNumber());
                }
                if (message == null) {
                    log.warn("Payment intake: no event {} of {}; row dropped", row.sequenceNumber(), row.checkout());
                } else {
                    DomainEventMessage<?> taking = message;
                    intent.set(taking);
                    CurrentUnitOfWork.get().transformMessage(m -> taking);
                    // the claim said whether its checkout may have parked events: only then is the queue asked
                    if (!row.mayBeParked() || !parking.get().parkBehind(taking)) {
                        dispatch.accept(taking);
                    }
                }
            });
        } catch (LetGo e) {
            return false; // rolled back: the row's lock released, nothing called
        } catch (RuntimeException | Error e) {
            Row row = taken.get();
            if (row == null) {
                throw e;
            }
            try {
                failed(row, intent.get(), e);
            } finally {
                failing.remove(row.id());
            }
        } finally {
            if (taken.get() != null) {
                inFlight.get(taken.get().tenant()).decrementAndGet();
            }
        }
        return taken.get() != null;
    }

    /**
     * Takes the next row from the first tenant in {@code order} under its share here (a slot of the share first: two
     * drainers never both take the last one); a tenant found without a ready row is forgotten until rows are queued
     * for it here or a look at the table finds some. A row whose failed call is still being recorded is let go.
     */
    private Row claim(List<String> order, java.util.concurrent.atomic.AtomicBoolean sawFull) {
        Long[] skipped = failing.toArray(Long[]::new);
        for (String tenant : order) {
            AtomicInteger calls = inFlight.computeIfAbsent(tenant, t -> new AtomicInteger());
            if (calls.incrementAndGet() > perTenant) {
                calls.decrementAndGet();
                sawFull.set(true);
                continue;
            }
            long enqueuedBefore = enqueued.get();
            List<Row> rows;
            try {
                rows = jdbc.query(con -> {
                    var statement = con.prepareStatement(claimSql());
                    statement.setString(1, tenant);
                    statement.setArray(2, con.createArrayOf("bigint", skipped));
                    return statement;
                }, (rs, i) -> new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getInt(5),
                        rs.getBoolean(6)));
            } catch (RuntimeException e) {
                calls.decrementAndGet();
                throw e;
            }
            if (rows.isEmpty()) {
                calls.decrementAndGet();
                if (enqueued.get() == enqueuedBefore) {
                    withRows.remove(tenant);
                }
                continue;
            }
            Row row = rows.get(0);
            if (failing.contains(row.id())) {
                // its failed call rolled back after this claim read the failing set: it waits for its failure's record
                calls.decrementAndGet();
                throw new LetGo();
            }
            return row;
        }
        return null;
    }

    /** The claimed row is let go: its failed call is still being recorded. */
    private static final class LetGo extends RuntimeException {
        LetGo() {
            super("the row's failure is being recorded", null, false, false);
        }
    }

    /**
     * The call rolled back: parked (and the row removed), or retried from the intake after a back-off. The call had
     * a transaction of its own, so a failure outside a savepoint ({@link io.durablecheckout.activities.Savepoints})
     * is judged as its cause: nothing of the call remains to run again under savepoints.
     */
    private void failed(Row row, EventMessage<?> intent, Throwable thrown) {
        Throwable failure = thrown instanceof io.durablecheckout.activities.Savepoints.RetryUnderSavepointException
                && thrown.getCause() != null ? thrown.getCause() : thrown;
        boolean parked = false;
        if (intent != null) {
            try {
                parked = inTransaction(() -> {
                    if (parking.get().park(intent, failure)) {
                        jdbc.update("DELETE FROM payment_intake WHERE id = ?", row.id());
                        return true;
                    }
                    return false;
                });
            } catch (RuntimeException e) {
                log.warn("Payment intake: parking {} of {} failed, retried later: {}", row.sequenceNumber(),
                        row.checkout(), e.toString());
            }
        }
        if (parked) {
            log.warn("Payment intake: the call for event {} of {} failed and was parked: {}", row.sequenceNumber(),
                    row.checkout(), failure.toString());
            return;
        }
        long backoff = Math.min(MAX_BACKOFF.toMillis(), 1000L << Math.min(row.attempts(), 5));
        log.info("Payment intake: the call for event {} of {} failed (attempt {}), retried in {} ms: {}",
                row.sequenceNumber(), row.checkout(), row.attempts() + 1, backoff, failure.toString());
        try {
            jdbc.update("UPDATE payment_intake SET attempts = attempts + 1, last_error = left(?, 1000),"
                            + " not_before = now() + ? * interval '1 millisecond' WHERE id = ?",
                    failure.toString(), backoff, row.id());
        } catch (RuntimeException e) {
            log.warn("Payment intake: could not record the failure of {} of {}: {}", row.sequenceNumber(),
                    row.checkout(), e.toString()); // the row stays ready: retried at once
        }
    }

    private <T> T inTransaction(Supplier<T> body) {
        if (transactions == null) {
            return body.get();
        }
        return transactions.fetchInTransaction(body);
    }

    /** Stops taking rows; calls in flight finish (bounded); a row cut off is taken again by a live drainer. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        signals.release(drainers);
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        synchronized (this) {
            for (Thread t : threads) {
                try {
                    t.join(Math.max(1, (until - System.nanoTime()) / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
