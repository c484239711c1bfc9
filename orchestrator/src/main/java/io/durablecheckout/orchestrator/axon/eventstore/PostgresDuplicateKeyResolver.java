package io.durablecheckout.orchestrator.axon.eventstore;

import org.axonframework.common.jdbc.PersistenceExceptionResolver;

import java.sql.SQLException;

/**
 * Recognises PostgreSQL's unique violation (SQLSTATE 23505) as a duplicate key. Axon's
 * {@code JdbcSQLErrorCodesResolver} only recognises {@code SQLIntegrityConstraintViolationException}, which the
 * PostgreSQL driver never throws (it throws {@code PSQLException} with the SQLSTATE); Axon's
 * {@code SQLErrorCodesResolver} lists 23505 for PostgreSQL but compares it with {@code SQLException.getErrorCode()},
 * the vendor code, which that driver leaves at 0, and needs a {@code DataSource} lookup at start. With either, two
 * nodes appending to one checkout surfaced as a generic {@code EventStoreException} instead of Axon's
 * {@code ConcurrencyException}: the command could not be told apart from a broken database, nor retried
 * (docs/scaling.md). Reading the SQLSTATE is what the driver documents.
 */
public final class PostgresDuplicateKeyResolver implements PersistenceExceptionResolver {

    static final String UNIQUE_VIOLATION = "23505";

    @Override
    public boolean isDuplicateKeyViolation(Exception exception) {
        for (Throwable t = exception; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                for (SQLException s = sql; s != null; s = s.getNextException()) {
                    if (UNIQUE_VIOLATION.equals(s.getSQLState())
                            || s instanceof java.sql.SQLIntegrityConstraintViolationException) {
                        return true;
                    }
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
