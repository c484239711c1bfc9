package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
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
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * kill -9 of the real process with checkouts in flight, then the same command again on the same database: every
 * checkout completes, and nothing is reserved, charged or receipted twice.
 */
class CrashRecoveryIT {

    static final int CHECKOUTS = 40;
    static final List<String> NODE_ARGS = List.of("--checkout.simulator.slow-delay=400ms");

    static EmbeddedPostgresServer postgres;
    static JdbcTemplate db;

    @BeforeAll
    static void database() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "crash-pg-");
        postgres = EmbeddedPostgresServer.start(dir, 0);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(postgres.jdbcUrl());
        ds.setUser("postgres");
        db = new JdbcTemplate(ds);
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
    }

    @Test
    void killedWithCheckoutsInFlightItResumesAndCompletesEachExactlyOnce() throws Exception {
        Set<String> ids = ConcurrentHashMap.newKeySet();
        try (NodeProcess first = NodeProcess.start("crash-node-1", postgres.jdbcUrl(), NODE_ARGS)) {
            HttpApi api = new HttpApi(first.port());
            IntStream.range(0, CHECKOUTS).parallel().forEach(i -> {
                HttpApi.Response r = api.startCheckout("crash-" + UUID.randomUUID(),
                        HttpApi.checkoutBody("SKU-0100", 1, 1000, "tok_slow"));
                assertThat(r.status()).isEqualTo(202);
                ids.add(r.json().get("checkoutId").asText());
            });
            // kill at a moment when some checkouts are done and others are between steps
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                    .until(() -> completed() >= 3);
            first.kill9();
        }
        long doneAtKill = completed();
        assertThat(doneAtKill).as("checkouts must still be in flight when the process dies").isLessThan(CHECKOUTS);

        try (NodeProcess second = NodeProcess.start("crash-node-2", postgres.jdbcUrl(), NODE_ARGS)) {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                    .until(() -> completed() == CHECKOUTS);
            // every confirmed order became a sale in the books, once
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    count("SELECT sold FROM stock WHERE tenant_id = 'demo' AND sku = 'SKU-0100'") == CHECKOUTS);
        }

        for (String id : ids) {
            assertThat(count("SELECT count(*) FROM inventory_operations WHERE checkout_id = ? AND kind = 'RESERVE'", id)).isEqualTo(1);
            assertThat(count("SELECT count(*) FROM simulator_authorizations WHERE operation_id LIKE ?", id + "/%")).isEqualTo(1);
            assertThat(count("SELECT count(*) FROM outbound_messages WHERE operation_id LIKE ?", id + "/%")).isEqualTo(1);
            assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? AND payloadtype LIKE '%.StockReservedEvent'", id)).isEqualTo(1);
            assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? AND payloadtype LIKE '%.CheckoutCompletedEvent'", id)).isEqualTo(1);
        }
        assertThat(count("SELECT sold FROM stock WHERE tenant_id = 'demo' AND sku = 'SKU-0100'")).isEqualTo(CHECKOUTS);
        assertThat(count("SELECT count(*) FROM stock WHERE available + reserved + sold <> initial_quantity")).isZero();
    }

    static long completed() {
        return count("SELECT count(*) FROM checkout_summary WHERE state = 'completed'");
    }

    static long count(String sql, Object... args) {
        try {
            Long n = db.queryForObject(sql, Long.class, args);
            return n == null ? 0 : n;
        } catch (org.springframework.jdbc.BadSqlGrammarException e) {
            return 0; // tables not migrated yet
        }
    }
}
