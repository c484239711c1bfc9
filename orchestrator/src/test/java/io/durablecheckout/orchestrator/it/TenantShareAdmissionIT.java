package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.PrivateDatabase;
import io.durablecheckout.orchestrator.it.support.InProcessNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 54, build 2, per-tenant shares over real HTTP on a database of its own: tenant {@code demo} floods with slow
 * payments (4 provider calls, one second each) past the backlog limit (40) from 6 clients; a second tenant, created
 * through the admin API with its own stock, then submits 10 checkouts while the flood goes on. The flooding tenant is
 * refused with 429, problem+json and Retry-After; every one of the second tenant's checkouts is admitted (it is under
 * its share, half the limit) and completes. With one shared backlog the second tenant was refused.
 */
class TenantShareAdmissionIT {

    static final int SECOND_TENANTS_CHECKOUTS = 10;
    static final List<String> SETTINGS = List.of("checkout.admission.max-backlog=40",
            "checkout.payments.max-concurrent-calls=4", "checkout.demo.sku-count=5");

    PrivateDatabase database;
    JdbcTemplate db;

    record Answer(int status, String retryAfter, String contentType, String body) {
    }

    @BeforeEach
    void database() throws Exception {
        database = PrivateDatabase.start("tenant-share-pg-");
        db = database.jdbc();
    }

    @AfterEach
    void stop() throws Exception {
        database.close();
    }

    @Test
    void aFloodingTenantIsRefusedAtItsShareWhileAnotherTenantsCheckoutsAreAllAdmitted() throws Exception {
        String adminKey = database.firstAdminKey();
        try (InProcessNode node = InProcessNode.start("tenant-share", database.jdbcUrl(), null, SETTINGS)) {
            HttpApi api = new HttpApi(node.port());
            String[] tenant = PrivateDatabase.secondTenant(api, adminKey, "SHOP-1");
            String shop = tenant[0];
            String shopKey = tenant[1];

            // the flood: 6 clients submit slow payments as fast as they are answered, until told to stop
            ConcurrentLinkedQueue<Answer> flood = new ConcurrentLinkedQueue<>();
            AtomicBoolean flooding = new AtomicBoolean(true);
            ExecutorService clients = Executors.newFixedThreadPool(6);
            for (int c = 0; c < 6; c++) {
                clients.submit(() -> {
                    while (flooding.get()) {
                        HttpApi.Response r = api.startCheckout("flood-" + UUID.randomUUID(),
                                HttpApi.checkoutBody("SKU-0001", 1, 1000, "tok_slow"));
                        flood.add(new Answer(r.status(), r.header("Retry-After"), r.header("Content-Type"),
                                r.body()));
                    }
                });
            }
            List<String> admitted = new java.util.ArrayList<>();
            List<Answer> second = new java.util.ArrayList<>();
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> flood.stream().anyMatch(a -> a.status() == 429));
                int refusedBefore = (int) flood.stream().filter(a -> a.status() == 429).count();
                for (int i = 0; i < SECOND_TENANTS_CHECKOUTS; i++) {
                    HttpApi.Response r = api.send("POST", "/api/v1/checkouts", shopKey,
                            Map.of("Idempotency-Key", "shop-" + UUID.randomUUID()),
                            HttpApi.checkoutBody("SHOP-1", 1, 500, "tok_approve"));
                    second.add(new Answer(r.status(), r.header("Retry-After"), r.header("Content-Type"), r.body()));
                    if (r.status() == 202) {
                        admitted.add(r.json().get("checkoutId").asText());
                    }
                }
                // the flood is still being refused while the second tenant is admitted
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> flood.stream().filter(a -> a.status() == 429).count() > refusedBefore);
            } finally {
                flooding.set(false);
                clients.shutdown();
                assertThat(clients.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            }

            long floodAccepted = flood.stream().filter(a -> a.status() == 202).count();
            List<Answer> refused = flood.stream().filter(a -> a.status() == 429).toList();
            System.out.printf("tenant shares: flood %d accepted, %d refused; second tenant %d of %d admitted%n",
                    floodAccepted, refused.size(), admitted.size(), SECOND_TENANTS_CHECKOUTS);
            assertThat(flood).allMatch(a -> a.status() == 202 || a.status() == 429, "only 202 or 429");
            assertThat(floodAccepted).as("the flooding tenant had its share").isGreaterThanOrEqualTo(20);
            for (Answer a : refused) {
                assertThat(a.contentType()).startsWith("application/problem+json");
                assertThat(Long.parseLong(a.retryAfter())).isBetween(1L, 60L);
                assertThat(a.body()).contains("backlog-full", "Tenant demo has");
            }
            assertThat(second).as("every one of the second tenant's checkouts admitted").extracting(Answer::status)
                    .containsOnly(202);

            for (String id : admitted) {
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() ->
                        "completed".equals(db.query("SELECT state FROM checkout_summary WHERE checkout_id = ?",
                                rs -> rs.next() ? rs.getString(1) : null, id)));
            }
            assertThat(db.queryForObject("SELECT count(*) FROM checkout_summary WHERE tenant_id = ?", Long.class,
                    shop)).isEqualTo(SECOND_TENANTS_CHECKOUTS);
        }
    }
}
