package io.durablecheckout.activities;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.time.Duration;

/**
 * Runs one intent's resource work in the caller's transaction (the processor batch's), under a savepoint only after a
 * failure.
 * <p>
 * Why a savepoint at all: PostgreSQL aborts a whole transaction on the first failed statement. One intent whose
 * write fails (a value too long for its column, a constraint) would leave the batch's transaction unusable: the
 * dead-letter queue could not park it in that transaction, and a failure thrown in Java after some of the intent's
 * writes would commit those writes with the parked event. Rolled back to its savepoint, the failed intent leaves no
 * trace, the dead-letter queue parks it, and the rest of the batch commits.
 * <p>
 * Why only after a failure: a SAVEPOINT and a RELEASE are two statements around every intent (10 per checkout, a
 * tenth of all statements, docs/decisions.md), for failures that almost never happen. So the work runs as it is; if
 * it fails, the failure is rethrown as {@link RetryUnderSavepointException}, which the dead-letter policy treats as
 * transient: the batch rolls back, the processor retries it, and for {@link #GUARDED_AFTER_FAILURE} every intent of
 * this resource runs under a savepoint again, so the retry parks the failing intent and commits the others. The
 * price is paid only when an intent fails: its batch runs twice (a payment batch calls the provider again for its
 * other intents, with the same idempotency keys, so the provider decides nothing twice).
 * <p>
 * Outside a transaction (resource tests in autocommit) the work runs as it is.
 */
public final class Savepoints {

    /** Longer than the processors' retry back-off, so the retried batch runs guarded. */
    static final Duration GUARDED_AFTER_FAILURE = Duration.ofMinutes(5);

    /** Set while an operator retries parked events: that path has no batch to run again, so it is always guarded. */
    private static final ThreadLocal<Boolean> ALWAYS = new ThreadLocal<>();

    private final TransactionTemplate nested;
    private volatile long guardedUntilNanos;
    /** Set by the first failure and never cleared: nanoTime values only compare meaningfully once one was taken. */
    private volatile boolean guarded;

    public Savepoints(DataSource dataSource) {
        // Spring binds the batch's connection per DataSource, so a manager on the same DataSource sees the batch's
        // transaction and NESTED becomes a JDBC savepoint on that connection.
        this.nested = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
    }

    public <T> T run(java.util.function.Supplier<T> work) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return work.get();
        }
        if (ALWAYS.get() != null || guarded()) {
            return nested.execute(status -> work.get());
        }
        try {
            return work.get();
        } catch (RuntimeException e) {
            guardedUntilNanos = System.nanoTime() + GUARDED_AFTER_FAILURE.toNanos();
            guarded = true;
            throw new RetryUnderSavepointException(e);
        }
    }

    /**
     * Runs {@code work} (on this thread) with every intent under a savepoint, as before: a parked event retried by an
     * operator is handled in a transaction that also requeues it if it fails again, so it must not be aborted.
     */
    public static <T> T alwaysGuarded(java.util.function.Supplier<T> work) {
        Boolean outer = ALWAYS.get();
        ALWAYS.set(Boolean.TRUE);
        try {
            return work.get();
        } finally {
            if (outer == null) {
                ALWAYS.remove();
            }
        }
    }

    /** Whether the next intents run under a savepoint (after a failure). */
    public boolean guarded() {
        return guarded && System.nanoTime() - guardedUntilNanos < 0;
    }

    /**
     * An intent failed without a savepoint: its batch's transaction may be aborted or hold the intent's partial
     * writes, so the batch must roll back and run again (transient for the dead-letter policy); the retry runs under
     * savepoints and meets the {@link #getCause() cause} there, where it is judged as itself.
     */
    public static final class RetryUnderSavepointException extends org.springframework.dao.TransientDataAccessException {
        RetryUnderSavepointException(RuntimeException cause) {
            super("an intent failed outside a savepoint; its batch is retried with savepoints: " + cause.getMessage(),
                    cause);
        }
    }
}
