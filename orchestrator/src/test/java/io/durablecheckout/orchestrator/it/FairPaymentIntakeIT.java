package io.durablecheckout.orchestrator.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.PrivateDatabase;
import io.durablecheckout.orchestrator.it.support.InProcessNode;
import io.durablecheckout.orchestrator.it.support.InvariantChecker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 54's fair queuing, on a small scale over real HTTP and an embedded PostgreSQL (decision 132): tenant
 * {@code demo} floods with {@code tok_slow} (one second per authorization at the simulator), far more intents than the
 * 4 provider calls allowed, while a second tenant, created through the admin API with its own stock, pays with
 * {@code tok_approve}. The payments intake drains round robin over tenants, so each of the second tenant's checkouts
 * completes within a bound near its unloaded time while the flood is still queued (behind the flood in one FIFO, each
 * waited for the whole queue ahead of it: 80 calls at 4/s); then every flood checkout completes too, with one
 * authorization per operation at the simulator and no lease expired (6 s leases: the queue outlives them).
 */
class FairPaymentIntakeIT {

    static final int FLOOD = 80;
    static final int SECOND = 5;
    static final List<String> SETTINGS = List.of(
            "checkout.workflow.lease-duration=6s", "checkout.workflow.payment-lease-duration=6s",
            "checkout.workflow.max-attempts=2",
            "checkout.payments.max-concurrent-calls=4", "checkout.demo.sku-count=5");

    PrivateDatabase database;
    JdbcTemplate db;

    @BeforeEach
    void database() throws Exception {
        database = PrivateDatabase.start("fair-intake-pg-");
        db = database.jdbc();
    }

    @AfterEach
    void stop() throws Exception {
        database.close();
    }

    @Test
    void anotherTenantsPaymentsAreServedBesideAFloodThatStillCompletesInFull() throws Exception {
        String adminKey = database.firstAdminKey();
        try (InProcessNode node = InProcessNode.start("fair-intake", database.jdbcUrl(), null, SETTINGS)) {
            HttpApi api = new HttpApi(node.port());
            String[] tenant = PrivateDatabase.secondTenant(api, adminKey, "SHOP-1");
            String shop = tenant[0];
            String shopKey = tenant[1];

            // the second tenant alone: its unloaded time from submit to completed (the first one warms up)
            long unloaded = Long.MAX_VALUE;
            for (int i = 0; i < 3; i++) {
                unloaded = Math.min(unloaded, submitAndWait(api, shopKey, Duration.ofSeconds(30)));
            }
            Duration bound = Duration.ofMillis(Math.max(4_000, 3 * unloaded));

            // the flood: every checkout accepted before the second tenant submits again
            List<String> flood = new ArrayList<>();
            ExecutorService clients = Executors.newFixedThreadPool(6);
            try {
                List<Future<String>> accepted = new ArrayList<>();
                for (int i = 0; i < FLOOD; i++) {
                    accepted.add(clients.submit(() -> {
                        HttpApi.Response r = api.startCheckout("flood-" + UUID.randomUUID(),
                                HttpApi.checkoutBody("SKU-0001", 1, 1000, "tok_slow"));
                        assertThat(r.status()).as(r.body()).isEqualTo(202);
                        return r.json().get("checkoutId").asText();
                    }));
                }
                for (Future<String> f : accepted) {
                    flood.add(f.get());
                }
            } finally {
                clients.shutdown();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM payment_intake") >= 20);

            List<Long> loaded = new ArrayList<>();
            for (int i = 0; i < SECOND; i++) {
                loaded.add(submitAndWait(api, shopKey, bound));
            }
            long floodOpen = count("SELECT count(*) FROM checkout_summary WHERE tenant_id = 'demo'"
                    + " AND state NOT IN ('completed', 'manual_review', 'cancelled')");
            System.out.printf("fair intake: second tenant alone %d ms, beside the flood %s ms (bound %d ms); %d of %d"
                    + " flood checkouts still open%n", unloaded, loaded, bound.toMillis(), floodOpen, FLOOD);
            assertThat(floodOpen).as("the second tenant was served while the flood was still queued")
                    .isGreaterThanOrEqualTo(FLOOD / 4);

            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> count(
                    "SELECT count(*) FROM checkout_summary WHERE state IN ('completed', 'manual_review', 'cancelled')")
                    == FLOOD + SECOND + 3);
            assertThat(count("SELECT count(*) FROM checkout_summary WHERE state = 'completed'"))
                    .as("every checkout completed").isEqualTo(FLOOD + SECOND + 3);
            assertThat(count("SELECT count(*) FROM payment_intake")).as("the intake drained").isZero();
            assertThat(count("SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityLeaseExpiredEvent'"))
                    .as("no lease expired: a queued intent is not passed").isZero();
            assertThat(count("SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityLeaseDeferredEvent'"))
                    .as("the queue outlived leases").isPositive();
            assertThat(count("SELECT count(*) FROM domainevententry "
                    + "WHERE payloadtype LIKE '%.PaymentAuthorizationRequestedEvent'"))
                    .as("each authorization issued once").isEqualTo(FLOOD + SECOND + 3);
            assertThat(count("SELECT count(*) FROM (SELECT operation_id FROM simulator_calls WHERE action = 'AUTHORIZE' "
                    + "GROUP BY operation_id HAVING count(*) > 1) again")).as("the provider asked once per operation")
                    .isZero();
            assertThat(count("SELECT count(DISTINCT operation_id) FROM simulator_calls WHERE action = 'AUTHORIZE'"))
                    .isEqualTo(FLOOD + SECOND + 3);

            // the intake's answer is recorded with each deadline's input: deferred checkouts replay identically
            for (String id : db.queryForList("SELECT DISTINCT aggregateidentifier FROM domainevententry "
                    + "WHERE payloadtype LIKE '%.ActivityLeaseDeferredEvent' LIMIT 3", String.class)) {
                JsonNode replay = api.get("/api/v1/checkouts/" + id + "/replay").json();
                assertThat(replay.get("verdict").asText()).as(replay.path("report").asText()).isEqualTo("identical");
            }
            assertThat(new InvariantChecker(db).violations()).isEmpty();
        }
    }

    /** Submits one of the second tenant's checkouts and waits for it to complete: the time it took, in ms. */
    private long submitAndWait(HttpApi api, String key, Duration bound) {
        long start = System.nanoTime();
        HttpApi.Response r = api.send("POST", "/api/v1/checkouts", key,
                Map.of("Idempotency-Key", "shop-" + UUID.randomUUID()),
                HttpApi.checkoutBody("SHOP-1", 1, 500, "tok_approve"));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        String id = r.json().get("checkoutId").asText();
        await().atMost(bound).pollInterval(Duration.ofMillis(50)).until(() ->
                "completed".equals(db.query("SELECT state FROM checkout_summary WHERE checkout_id = ?",
                        rs -> rs.next() ? rs.getString(1) : null, id)));
        return (System.nanoTime() - start) / 1_000_000;
    }

    private long count(String sql, Object... args) {
        Long n = db.queryForObject(sql, Long.class, args);
        return n == null ? 0 : n;
    }
}
