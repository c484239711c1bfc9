package io.durablecheckout.orchestrator.tenancy;

import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code create-admin-key} on a real, empty PostgreSQL, configured as the production start is (the
 * {@code SPRING_DATASOURCE_*} variables): it creates the schema and one admin key, prints the key once, and refuses
 * while an admin key is active.
 */
class AdminKeyCommandTest {

    static EmbeddedPostgresServer postgres;
    static JdbcTemplate db;
    static Map<String, String> env;

    @BeforeAll
    static void emptyDatabase() throws Exception {
        Path target = Files.createDirectories(Path.of("target"));
        postgres = EmbeddedPostgresServer.start(Files.createTempDirectory(target.toAbsolutePath(), "admin-key-pg-"), 0);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(postgres.jdbcUrl());
        db = new JdbcTemplate(ds);
        env = Map.of("SPRING_DATASOURCE_URL", postgres.url(), "SPRING_DATASOURCE_USERNAME", "postgres",
                "SPRING_DATASOURCE_PASSWORD", postgres.password());
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
    }

    record Run(int code, String out, String err) {
    }

    static Run run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = AdminKeyCommand.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void createsOneAdminKeyOnAnEmptyDatabasePrintsItOnceAndRefusesASecond() {
        Run first = run(env, "create-admin-key");
        assertThat(first.code()).as(first.err()).isZero();
        String key = first.out().strip();
        assertThat(key).as("the key alone on stdout").matches("ck_[A-Za-z0-9_-]{32}");
        assertThat(first.err()).doesNotContain(key).contains("shown this once");

        // the key works: an active admin of the tenant 'admin'; the database holds only its hash
        ApiKeys keys = new ApiKeys(db);
        Caller caller = keys.resolve(key).orElseThrow();
        assertThat(caller.roles()).containsExactly(Caller.Role.ADMIN);
        assertThat(caller.tenantId()).isEqualTo("admin");
        assertThat(db.queryForObject("SELECT count(*) FROM api_keys WHERE key_sha256 = ?", Long.class,
                ApiKeys.sha256(key))).isEqualTo(1);
        assertThat(db.queryForObject("SELECT count(*) FROM api_keys WHERE key_sha256 = ? OR label LIKE ?",
                Long.class, key, "%" + key + "%")).isZero();
        assertThat(db.queryForObject("SELECT count(*) FROM audit_log WHERE action = 'key.issue' AND actor = ?",
                Long.class, AdminKeyCommand.NAME)).isEqualTo(1);

        Run second = run(env, "create-admin-key");
        assertThat(second.code()).isEqualTo(1);
        assertThat(second.out()).as("no key printed").isEmpty();
        assertThat(second.err()).contains("refused").contains(caller.keyId());
        assertThat(adminKeys()).isEqualTo(1);

        // once every admin key is revoked, a new first key can be made (a lost key, say)
        keys.revoke(caller.keyId(), "test");
        Run third = run(env, "create-admin-key", "--label", "after the loss");
        assertThat(third.code()).as(third.err()).isZero();
        assertThat(keys.resolve(third.out().strip())).isPresent();
        assertThat(keys.resolve(key)).isEmpty();
    }

    @Test
    void withoutADatabaseOrWithBadOptionsItSaysWhatIsMissing() {
        Run none = run(Map.of(), "create-admin-key");
        assertThat(none.code()).isEqualTo(2);
        assertThat(none.err()).contains("SPRING_DATASOURCE_URL");
        Run unknown = run(env, "create-admin-key", "--roles", "tenant");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("unknown option --roles");
        assertThat(unknown.out()).isEmpty();
        // issue 53: a label with control characters (a forged log line, a terminal escape) is refused, nothing made
        for (String label : List.of("ops\nWARN forged line", "ops\u001b[31m", "ops\u0000")) {
            Run control = run(env, "create-admin-key", "--label", label);
            assertThat(control.code()).as(label).isEqualTo(2);
            assertThat(control.err()).contains("--label: at most 100 printable characters");
            assertThat(control.out()).as("no key made").isEmpty();
        }
    }

    private static long adminKeys() {
        return db.queryForObject("SELECT count(*) FROM api_keys WHERE roles LIKE '%admin%' AND revoked_at IS NULL",
                Long.class);
    }
}
