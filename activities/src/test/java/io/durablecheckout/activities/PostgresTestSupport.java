package io.durablecheckout.activities;

import io.durablecheckout.activities.privacy.FileDataKeyStore;
import io.durablecheckout.activities.privacy.PersonalDataVault;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * One real PostgreSQL per test class (in-process, embedded), migrated by Flyway from this module's own migration
 * folder, and a {@link TransactionTemplate} that plays the part of the worker's unit of work.
 */
public abstract class PostgresTestSupport {

    protected static EmbeddedPostgres postgres;
    protected static DataSource dataSource;
    protected static JdbcTemplate jdbc;
    protected static DataSourceTransactionManager transactionManager;
    protected static TransactionTemplate tx;
    /** Data keys in a directory of their own per test class, as the embedded default keeps them. */
    protected static FileDataKeyStore keys;
    protected static PersonalDataVault vault;

    @BeforeAll
    static void startPostgres() throws IOException {
        postgres = EmbeddedPostgres.builder().start();
        dataSource = postgres.getPostgresDatabase();
        Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration/activities")
                .load()
                .migrate();
        jdbc = new JdbcTemplate(dataSource);
        transactionManager = new DataSourceTransactionManager(dataSource);
        tx = new TransactionTemplate(transactionManager);
        Path target = Files.createDirectories(Path.of("target"));
        keys = new FileDataKeyStore(Files.createTempDirectory(target.toAbsolutePath(), "data-keys-"));
        vault = new PersonalDataVault(dataSource, keys);
    }

    @AfterAll
    static void stopPostgres() throws IOException {
        if (postgres != null) postgres.close();
        postgres = null;
    }

    /** Runs {@code work} in one transaction, as a streaming processor's unit of work would. */
    protected static <T> T inTransaction(Supplier<T> work) {
        return tx.execute(status -> work.get());
    }

    protected static void inTransaction(Runnable work) {
        tx.executeWithoutResult(status -> work.run());
    }
}
