package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A member that froze inside a statement (SIGSTOP while the server was still busy on its behalf) keeps its row locks:
 * PostgreSQL's idle-in-transaction timeout does not apply to a session whose statement is running. Here that session
 * is made by hand, named as a member that has not refreshed for an hour, and it locks the saga's segment claim while
 * running a long statement: the live node's saga stalls on the lock until the node ends that session, and the
 * checkout submitted meanwhile completes. Without the ending (a mutant that skips it) the session and the stall last
 * the statement's five minutes, past the wait below.
 */
class FrozenMemberSessionIT {

    static final String FROZEN = "checkout zz0 frozen-node";

    EmbeddedPostgresServer postgres;
    JdbcTemplate db;

    @BeforeEach
    void database() throws Exception {
        postgres = EmbeddedPostgresServer.start(
                Files.createTempDirectory(Path.of("target").toAbsolutePath(), "frozen-pg-"), 0);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(postgres.jdbcUrl());
        ds.setUser("postgres");
        db = new JdbcTemplate(ds);
    }

    @AfterEach
    void stop() throws Exception {
        postgres.close();
    }

    @Test
    void aFrozenMembersRunningStatementIsEndedAndTheSagaMovesOn() throws Exception {
        try (InProcessNode live = InProcessNode.start("live-node", postgres.jdbcUrl(), null,
                List.of("checkout.processing.claim-timeout=3s", "checkout.demo.sku-count=5"))) {
            String before = startCheckout(live.port());
            awaitCompleted(before, Duration.ofSeconds(60));
            db.update("INSERT INTO cluster_members (node_id, processor, last_seen, session_name)"
                    + " VALUES ('frozen-node', 'CheckoutSagaProcessor', now() - interval '1 hour', ?)", FROZEN);

            Properties props = new Properties();
            props.setProperty("user", "postgres");
            props.setProperty("ApplicationName", FROZEN);
            Connection frozen = DriverManager.getConnection(postgres.jdbcUrl(), props);
            frozen.setAutoCommit(false);
            try (Statement s = frozen.createStatement()) {
                s.execute("SET idle_in_transaction_session_timeout = 0");
                s.execute("SELECT 1 FROM tokenentry WHERE processorname = 'CheckoutSagaProcessor' FOR UPDATE");
            }
            CompletableFuture<SQLException> running = CompletableFuture.supplyAsync(() -> {
                try (Statement s = frozen.createStatement()) {
                    s.execute("SELECT pg_sleep(300)"); // 'active': no timeout of the server's ends it
                    return null;
                } catch (SQLException e) {
                    return e;
                }
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT count(*) FROM pg_stat_activity"
                    + " WHERE application_name = ? AND state = 'active'", FROZEN) == 1);

            String during = startCheckout(live.port());
            awaitCompleted(during, Duration.ofSeconds(60));
            assertThat(running.get().getSQLState()).as("the frozen member's session was terminated").startsWith("57P01");
            assertThat(count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", FROZEN)).isZero();
            assertThat(count("SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'checkout % live-node'"))
                    .as("the live node's own sessions carry its name and stay").isPositive();
            frozen.close();
        }
    }

    private String startCheckout(int port) {
        HttpApi.Response r = new HttpApi(port).startCheckout("frozen-" + UUID.randomUUID(),
                HttpApi.checkoutBody("SKU-0001", 1, 1000, "tok_approve"));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("checkoutId").asText();
    }

    private void awaitCompleted(String id, Duration atMost) {
        await().atMost(atMost).pollInterval(Duration.ofMillis(200)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'completed'", id) == 1);
    }

    private long count(String sql, Object... args) {
        Long n = db.queryForObject(sql, Long.class, args);
        return n == null ? 0 : n;
    }
}
