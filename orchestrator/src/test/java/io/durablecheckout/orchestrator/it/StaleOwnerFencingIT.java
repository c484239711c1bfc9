package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.PrivateDatabase;
import io.durablecheckout.orchestrator.it.support.InProcessNode;
import io.durablecheckout.orchestrator.it.support.InvariantChecker;
import io.durablecheckout.orchestrator.it.support.NodeProcess;

import io.durablecheckout.activities.WorkerPauseHook;
import io.durablecheckout.api.values.Step;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The seed's scenario on real PostgreSQL: worker A reads its intent (token 1) and pauses past its lease; the lease
 * deadline fires; worker B (another node) takes over with token 2 and completes; A resumes and tries to write with
 * token 1. A's write is rejected at the resource, the stale result is rejected at the aggregate, the resource holds
 * B's token, and the side effect happened once. And a frozen member's session holding a claim is ended by the live
 * node (decision 81).
 */
class StaleOwnerFencingIT {

    /**
     * Short lease and claim timeout, so the takeover happens within seconds. A's batch transaction is already open
     * while it is parked (the dead-letter queue's check ran in it), so PostgreSQL's idle-in-transaction timeout would
     * end A's session before A's delayed write: longer than the park here, so the write reaches the resource and is
     * refused by its token, as in the seed's scenario.
     */
    static final List<String> FAST_TAKEOVER = List.of("checkout.workflow.lease-duration=2s",
            "checkout.processing.claim-timeout=3s", "checkout.processing.token-claim-interval=500ms",
            "checkout.demo.sku-count=5", "checkout.datasource.idle-in-transaction-timeout=120s");

    PrivateDatabase database;
    JdbcTemplate db;

    @BeforeEach
    void database() throws Exception {
        database = PrivateDatabase.start("fencing-pg-");
        db = database.jdbc();
    }

    @AfterEach
    void stop() throws Exception {
        database.close();
    }

    @Test
    void withAAndBAsThreadsOfOneJvm() throws Exception {
        CountDownLatch parked = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        WorkerPauseHook parkFirstReservation = intent -> {
            if (intent.step() == Step.RESERVE_STOCK && intent.lease().fencingToken().value() == 1) {
                parked.countDown();
                await().atMost(Duration.ofSeconds(90)).until(() -> resume.await(100, TimeUnit.MILLISECONDS));
            }
        };
        try (InProcessNode a = InProcessNode.start("node-a", database.jdbcUrl(), parkFirstReservation, FAST_TAKEOVER)) {
            String id = startCheckout(a.port());
            assertThat(parked.await(30, TimeUnit.SECONDS)).as("worker A read its intent").isTrue();
            awaitEvent(id, "ActivityLeaseExpiredEvent");

            try (InProcessNode b = InProcessNode.start("node-b", database.jdbcUrl(), null, FAST_TAKEOVER)) {
                awaitCompleted(id);
                resume.countDown(); // A wakes up, still believing it owns the reservation
                MeterRegistry aMeters = a.bean(MeterRegistry.class);
                await().atMost(Duration.ofSeconds(30)).until(() -> aMeters.find("checkout.fencing.stale.rejected")
                        .counters().stream().mapToDouble(c -> c.count()).sum() >= 1);
                // the read model counted the expiry once, on whichever node folded it
                MeterRegistry bMeters = b.bean(MeterRegistry.class);
                await().atMost(Duration.ofSeconds(30)).until(() -> expired(aMeters) + expired(bMeters) == 1);
            }
            assertFencedOutcome(id);
        }
    }

    private static double expired(MeterRegistry meters) {
        return meters.find("checkout.leases.expired").tag("step", "reserve-stock").counters().stream()
                .mapToDouble(c -> c.count()).sum();
    }

    @Test
    void withAInASeparateJvm() throws Exception {
        List<String> parkA = new java.util.ArrayList<>(FAST_TAKEOVER.stream().map(p -> "--" + p).toList());
        parkA.addAll(List.of("--checkout.fault-injection.park-step=reserve-stock",
                "--checkout.fault-injection.park-token=1", "--checkout.fault-injection.park-duration=20s"));
        try (NodeProcess a = NodeProcess.start("fencing-node-a", database.jdbcUrl(), parkA)) {
            String id = startCheckout(a.port());
            awaitEvent(id, "ActivityLeaseExpiredEvent");

            try (InProcessNode b = InProcessNode.start("node-b", database.jdbcUrl(), null, FAST_TAKEOVER)) {
                awaitCompleted(id);
                // A resumes after its park and is refused at the resource: its own metric says so.
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                        .until(() -> staleRejections(a.port()) >= 1);
            }
            assertFencedOutcome(id);
        }
    }

    /**
     * A member that froze inside a statement (SIGSTOP while the server was still busy on its behalf) keeps its row
     * locks: PostgreSQL's idle-in-transaction timeout does not apply to a session whose statement is running. Here
     * such a session is made by hand, named as a member that has not refreshed for an hour, and it locks the saga's
     * segment claim while running a long statement: the live node's saga stalls on the lock until the node ends that
     * session (decision 81), and the checkout submitted meanwhile completes. Without the ending (a mutant that skips
     * it) the session and the stall last the statement's five minutes, past the wait.
     */
    @Test
    void aFrozenMembersRunningStatementIsEndedAndTheSagaMovesOn() throws Exception {
        String frozenName = "checkout zz0 frozen-node";
        try (InProcessNode live = InProcessNode.start("live-node", database.jdbcUrl(), null,
                List.of("checkout.processing.claim-timeout=3s", "checkout.demo.sku-count=5"))) {
            awaitCompleted(startCheckout(live.port()));
            db.update("INSERT INTO cluster_members (node_id, processor, last_seen, session_name)"
                    + " VALUES ('frozen-node', 'CheckoutSagaProcessor', now() - interval '1 hour', ?)", frozenName);
            Properties props = new Properties();
            props.setProperty("user", "postgres");
            props.setProperty("ApplicationName", frozenName);
            try (Connection frozen = DriverManager.getConnection(database.jdbcUrl(), props)) {
                frozen.setAutoCommit(false);
                try (Statement s = frozen.createStatement()) {
                    s.execute("SET idle_in_transaction_session_timeout = 0");
                    s.execute("SELECT 1 FROM tokenentry WHERE processorname = 'CheckoutSagaProcessor' FOR UPDATE");
                }
                CompletableFuture<SQLException> running =
                        CompletableFuture.supplyAsync(() -> {
                            try (Statement s = frozen.createStatement()) {
                                s.execute("SELECT pg_sleep(300)"); // 'active': no timeout of the server's ends it
                                return null;
                            } catch (SQLException e) {
                                return e;
                            }
                        });
                await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT count(*) FROM pg_stat_activity"
                        + " WHERE application_name = ? AND state = 'active'", frozenName) == 1);

                awaitCompleted(startCheckout(live.port()));
                assertThat(running.get().getSQLState()).as("the frozen member's session was terminated")
                        .isEqualTo("57P01");
            }
            assertThat(count("SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'checkout % live-node'"))
                    .as("the live node's own sessions carry its name and stay").isPositive();
        }
    }

    private void assertFencedOutcome(String id) {
        String reservation = id + "/reserve-stock";
        // every expiry granted a new owner the next token; the newest one is the only owner left
        long newest = count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? "
                + "AND payloadtype LIKE '%.StockReservationRequestedEvent'", id);
        assertThat(newest).as("the lease expired and a new owner took over").isGreaterThanOrEqualTo(2);
        // the resource holds the newest owner's token, and the reservation happened once
        assertThat(count("SELECT fencing_token FROM inventory_operations WHERE operation_id = ?", reservation))
                .isEqualTo(newest);
        await().atMost(Duration.ofSeconds(30)).until(() -> count(
                "SELECT count(*) FROM inventory_operations WHERE operation_id = ? AND status = 'SOLD'", reservation) == 1);
        assertThat(count("SELECT sum(quantity) FROM inventory_reservation_lines WHERE operation_id = ?", reservation))
                .isEqualTo(1);
        assertThat(count("SELECT sold FROM stock WHERE tenant_id = 'demo' AND sku = 'SKU-0001'")).isEqualTo(1);
        assertThat(count("SELECT reserved FROM stock WHERE tenant_id = 'demo' AND sku = 'SKU-0001'")).isZero();
        // a report under token 1 reached the aggregate after the takeover and was refused (the result, and A's
        // heartbeats while it was parked holding its lost lease); the newest one was applied
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? "
                + "AND payloadtype LIKE '%.ActivityResultRejectedEvent' "
                + "AND convert_from(payload, 'UTF8')::jsonb -> 'presentedToken' ->> 'value' = '1'", id)).isPositive();
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? "
                + "AND payloadtype LIKE '%.StockReservedEvent' "
                + "AND (convert_from(payload, 'UTF8')::jsonb -> 'fencingToken' ->> 'value')::bigint = ?", id, newest))
                .isEqualTo(1);
        assertThat(new InvariantChecker(db).violations()).isEmpty();
    }

    private String startCheckout(int port) {
        HttpApi.Response r = new HttpApi(port).startCheckout("fence-" + UUID.randomUUID(),
                HttpApi.checkoutBody("SKU-0001", 1, 1000, "tok_approve"));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("checkoutId").asText();
    }

    private void awaitEvent(String id, String type) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> count(
                "SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? AND payloadtype LIKE ?",
                id, "%." + type) > 0);
    }

    private void awaitCompleted(String id) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'completed'", id) == 1);
    }

    private long count(String sql, Object... args) {
        Long n = db.queryForObject(sql, Long.class, args);
        return n == null ? 0 : n;
    }

    private static double staleRejections(int port) {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://localhost:" + port + "/actuator/prometheus"))
                    .header("Authorization", "Bearer " + HttpApi.OPERATOR_KEY).build(), HttpResponse.BodyHandlers.ofString());
            return r.body().lines().filter(l -> l.startsWith("checkout_fencing_stale_rejected_total"))
                    .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
        } catch (Exception e) {
            return 0;
        }
    }
}
