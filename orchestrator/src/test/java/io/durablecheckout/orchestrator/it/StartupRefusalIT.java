package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.NodeProcess;
import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 10, acceptance 4: the packaged application started against a configured PostgreSQL with its defaults (demo
 * keys, simulator, no webhook secret, no provider URL) exits non-zero, with one message that names every missing
 * setting, and before it touches the database (no table is created).
 */
class StartupRefusalIT {

    static EmbeddedPostgresServer postgres;

    @BeforeAll
    static void database() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "refusal-pg-");
        postgres = EmbeddedPostgresServer.start(dir, 0);
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
    }

    @Test
    void withDefaultsOnAnExternalDatabaseTheServiceRefusesToStartAndSaysWhatIsMissing() throws Exception {
        NodeProcess.Exit exit = NodeProcess.runUntilExit("refusal-defaults", postgres.jdbcUrl(), List.of(),
                Duration.ofSeconds(120));

        assertThat(exit.code()).as(exit.output()).isNotNull().isNotZero();
        assertThat(exit.output())
                .contains("APPLICATION FAILED TO START")
                .contains("checkout.payments.webhook-secret")
                .contains("checkout.payments.provider-url")
                .contains("checkout.simulator.enabled")
                .contains("checkout.demo.enabled")
                .contains("checkout.personal-data.key-store").contains("the key checkout ids are derived with")
                .contains("checkout.mail.transport is sink")
                .doesNotContain("Flyway") // refused before the database is touched
                .doesNotContain("Tomcat started");
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(postgres.jdbcUrl());
        ds.setUser("postgres");
        assertThat(new JdbcTemplate(ds).queryForObject(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'", Integer.class)).isZero();
    }

    @Test
    void aShortWebhookSecretIsRefusedToo() throws Exception {
        NodeProcess.Exit exit = NodeProcess.runUntilExit("refusal-short-secret", postgres.jdbcUrl(), List.of(
                        "--checkout.payments.webhook-secret=short",
                        "--checkout.payments.provider-url=http://provider.invalid",
                        "--checkout.simulator.enabled=false", "--checkout.demo.enabled=false"),
                Duration.ofSeconds(120));

        assertThat(exit.code()).as(exit.output()).isNotNull().isNotZero();
        assertThat(exit.output()).contains("shorter than 32 characters")
                .doesNotContain("provider-url (").doesNotContain("checkout.demo.enabled is true");
    }
}
