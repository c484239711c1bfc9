package io.durablecheckout.activities;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.util.function.Supplier;

/**
 * Runs one intent's resource work under a savepoint of the caller's transaction (the processor batch's).
 * <p>
 * Why: PostgreSQL aborts a whole transaction on the first failed statement. Without a savepoint, one intent whose
 * write fails (a value too long for its column, a constraint) leaves the batch's transaction unusable: the
 * dead-letter queue cannot park it in that transaction, the batch rolls back, and every other intent of the batch
 * runs again (for payments, the provider is called again). Rolled back to its savepoint, the failed intent leaves
 * no trace, the dead-letter queue parks it, and the rest of the batch commits.
 * <p>
 * Outside a transaction (resource tests in autocommit) the work runs as it is.
 */
public final class Savepoints {

    private final TransactionTemplate nested;

    public Savepoints(DataSource dataSource) {
        // Spring binds the batch's connection per DataSource, so a manager on the same DataSource sees the batch's
        // transaction and NESTED becomes a JDBC savepoint on that connection.
        this.nested = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
    }

    public <T> T run(Supplier<T> work) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return work.get();
        }
        return nested.execute(status -> work.get());
    }
}
