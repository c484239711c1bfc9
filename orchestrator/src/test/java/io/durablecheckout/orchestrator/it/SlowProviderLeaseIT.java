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
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 54 on a small scale, over real HTTP and an embedded PostgreSQL: 60 checkouts paying with the simulator's
 * {@code tok_slow} (one second per authorization) against 4 provider calls in flight, so the payments queue lasts
 * about 15 s, while leases are 6 s and {@code max-attempts} 2. Under rules version 1 an intent still queued at its
 * second deadline (12 s) expired and was issued again (and a second expiry sent the checkout to manual review).
 * Now a queued intent's lease is checked again until the processor passes it: no lease expires, every intent is
 * issued once and claimed at most once, every checkout completes, and the provider is asked once per operation.
 */
class SlowProviderLeaseIT {

    static final int CHECKOUTS = 60;
    static final List<String> SETTINGS = List.of(
            "checkout.workflow.lease-duration=6s", "checkout.workflow.payment-lease-duration=6s",
            "checkout.workflow.max-attempts=2",
            "checkout.activities.heartbeat-interval=2s", "checkout.activities.lease-claim-delay=300ms",
            "checkout.payments.max-concurrent-calls=4", "checkout.demo.sku-count=5");

    PrivateDatabase database;
    JdbcTemplate db;

    @BeforeEach
    void database() throws Exception {
        database = PrivateDatabase.start("slow-provider-pg-");
        db = database.jdbc();
    }

    @AfterEach
    void stop() throws Exception {
        database.close();
    }

    @Test
    void queuedPaymentIntentsWaitInsteadOfExpiringAndEveryCheckoutCompletes() throws Exception {
        try (InProcessNode node = InProcessNode.start("slow-provider", database.jdbcUrl(), null, SETTINGS)) {
            HttpApi api = new HttpApi(node.port());
            List<String> ids = new ArrayList<>();
            ExecutorService clients = Executors.newFixedThreadPool(6);
            try {
                List<Future<String>> accepted = new ArrayList<>();
                for (int i = 0; i < CHECKOUTS; i++) {
                    accepted.add(clients.submit(() -> {
                        HttpApi.Response r = api.startCheckout("slow-" + UUID.randomUUID(),
                                HttpApi.checkoutBody("SKU-0001", 1, 1000, "tok_slow"));
                        assertThat(r.status()).as(r.body()).isEqualTo(202);
                        return r.json().get("checkoutId").asText();
                    }));
                }
                for (Future<String> f : accepted) {
                    ids.add(f.get());
                }
            } finally {
                clients.shutdown();
            }

            long submitted = System.nanoTime();
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> count(
                    "SELECT count(*) FROM checkout_summary WHERE state IN ('completed', 'manual_review', 'cancelled')")
                    == CHECKOUTS);
            System.out.printf("slow provider: %d checkouts terminal after %d ms; %d lease deferrals, %d renewals, %d "
                            + "expiries, %d heartbeats%n", CHECKOUTS, (System.nanoTime() - submitted) / 1_000_000,
                    count("SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityLeaseDeferredEvent'"),
                    count("SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityLeaseRenewedEvent'"),
                    count("SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityLeaseExpiredEvent'"),
                    count("SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityHeartbeatEvent'"));
            assertThat(count("SELECT count(*) FROM checkout_summary WHERE state = 'completed'"))
                    .as("every checkout completed").isEqualTo(CHECKOUTS);

            assertThat(count("SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityLeaseDeferredEvent'"))
                    .as("the queue outlived leases: intents were checked again while queued").isPositive();
            assertThat(count("SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityLeaseExpiredEvent'"))
                    .as("no lease expired: none of these intents was lost").isZero();
            assertThat(count("SELECT count(*) FROM domainevententry "
                    + "WHERE payloadtype LIKE '%.PaymentAuthorizationRequestedEvent'"))
                    .as("each authorization issued once, never re-issued").isEqualTo(CHECKOUTS);
            assertThat(count("SELECT count(*) FROM (SELECT 1 FROM domainevententry "
                    + "WHERE payloadtype LIKE '%.ActivityHeartbeatEvent' GROUP BY convert_from(payload, 'UTF8')::jsonb "
                    + "->> 'operationId', convert_from(payload, 'UTF8')::jsonb -> 'fencingToken' ->> 'value' "
                    + "HAVING count(*) > 1) more")).as("at most one claim (heartbeat) per intent").isZero();
            assertThat(count("SELECT count(*) FROM (SELECT operation_id FROM simulator_calls WHERE action = 'AUTHORIZE' "
                    + "GROUP BY operation_id HAVING count(*) > 1) again")).as("the provider asked once per operation")
                    .isZero();
            assertThat(count("SELECT count(DISTINCT operation_id) FROM simulator_calls WHERE action = 'AUTHORIZE'"))
                    .isEqualTo(CHECKOUTS);

            // the processor's answer is recorded with each deadline's input: the deferred checkouts replay identically
            List<String> deferred = db.queryForList("SELECT DISTINCT aggregateidentifier FROM domainevententry "
                    + "WHERE payloadtype LIKE '%.ActivityLeaseDeferredEvent' LIMIT 3", String.class);
            for (String id : deferred) {
                JsonNode replay = api.get("/api/v1/checkouts/" + id + "/replay").json();
                assertThat(replay.get("verdict").asText()).as(replay.path("report").asText()).isEqualTo("identical");
            }
            assertThat(new InvariantChecker(db).violations()).isEmpty();
        }
    }

    private long count(String sql, Object... args) {
        Long n = db.queryForObject(sql, Long.class, args);
        return n == null ? 0 : n;
    }
}
