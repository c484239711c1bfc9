package io.durablecheckout.orchestrator.deadletter;

import org.springframework.dao.TransientDataAccessException;
import org.axonframework.common.AxonTransientException;
import org.axonframework.common.jdbc.JdbcException;
import org.axonframework.modelling.command.ConcurrencyException;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.messaging.deadletter.DeadLetter;
import org.axonframework.messaging.deadletter.Decisions;
import org.axonframework.messaging.deadletter.EnqueueDecision;
import org.axonframework.messaging.deadletter.EnqueuePolicy;
import org.axonframework.messaging.deadletter.ThrowableCause;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.transaction.TransactionException;

import java.sql.SQLException;
import java.util.Set;

/**
 * Decides which handler failures park an event in its processor's dead-letter queue (sequenced per checkout) and
 * which fail the batch so it is retried with back-off, as before the queue existed.
 * <p>
 * Parked: failures that will happen again on every retry because of what the event carries or what the code does
 * with it: a value a resource refuses ({@code PoisonInputException}), a constraint or length violation (SQLSTATE
 * classes 22 and 23), and any error that is not about reaching or using the database (a bug, a contract broken by
 * a provider). Retrying those only stops every other checkout on the same segment, for ever.
 * <p>
 * Retried (the exception is rethrown, so the processor rolls the batch back and tries again): losing the database
 * or its connection, a deadlock or serialization failure, a cancelled or timed-out statement, an aborted
 * transaction, an operator shutting the server down: the fault matrix's PostgreSQL restart and pauses must not park
 * healthy checkouts.
 */
public final class PoisonEventPolicy implements EnqueuePolicy<EventMessage<?>> {

    /** SQLSTATE classes of trouble with the database itself rather than with the data. */
    private static final Set<String> TRANSIENT_SQL_CLASSES = Set.of(
            "08", // connection exception
            "25", // invalid transaction state (e.g. 25P02 aborted, 25P03 idle-in-transaction timeout)
            "40", // transaction rollback: deadlock, serialization failure
            "53", // insufficient resources
            "55", // object not in prerequisite state (lock not available)
            "57", // operator intervention: admin shutdown, query cancelled, statement timeout
            "58", // system error (I/O)
            "XX"); // internal error

    private static final int CAUSE_LENGTH = 1000; // the table's causemessage holds 1023

    @Override
    public EnqueueDecision<EventMessage<?>> decide(DeadLetter<? extends EventMessage<?>> letter, Throwable cause) {
        if (isTransient(cause)) {
            throw asUnchecked(cause); // the batch fails and is retried, as without a dead-letter queue
        }
        String message = describe(cause);
        return Decisions.enqueue(new ThrowableCause(cause.getClass().getName(), message));
    }

    /** Whether a retry of the same event might succeed because the failure was the database's, not the event's. */
    public static boolean isTransient(Throwable error) {
        if (error instanceof TransientDataAccessException) {
            return true; // e.g. the activities' "run the batch again under savepoints", where the cause is judged as itself
        }
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().length() >= 2) {
                return TRANSIENT_SQL_CLASSES.contains(sql.getSQLState().substring(0, 2));
            }
            if (t instanceof InterruptedException || t instanceof TransactionException || t instanceof JdbcException
                    || t instanceof AxonTransientException || t instanceof ConcurrencyException) {
                return true;
            }
            // A Spring data-access error without an SQLSTATE (no connection from the pool, a closed pool) is the
            // database's problem; a data integrity violation is the data's.
            if (t instanceof DataAccessException && !(t instanceof DataIntegrityViolationException)
                    && !(t.getCause() instanceof SQLException)) {
                return true;
            }
        }
        return false;
    }

    public static String describe(Throwable cause) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = cause; t != null && text.length() < CAUSE_LENGTH; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && !text.toString().contains(t.getMessage())) {
                if (!text.isEmpty()) {
                    text.append(" <- ");
                }
                text.append(t.getMessage());
            }
        }
        String s = text.isEmpty() ? cause.getClass().getSimpleName() : text.toString();
        return s.length() <= CAUSE_LENGTH ? s : s.substring(0, CAUSE_LENGTH - 3) + "...";
    }

    private static RuntimeException asUnchecked(Throwable cause) {
        if (cause instanceof RuntimeException re) {
            return re;
        }
        if (cause instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(cause);
    }
}
