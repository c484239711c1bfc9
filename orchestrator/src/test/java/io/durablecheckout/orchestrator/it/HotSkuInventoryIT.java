package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.InProcessNode;
import io.durablecheckout.orchestrator.it.support.InvariantChecker;
import io.durablecheckout.orchestrator.it.support.PrivateDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 48, Build 2 (decision 138): the inventory processor on two segments under a hot-SKU burst, over real HTTP
 * and an embedded PostgreSQL. Every checkout takes two or three of the same five SKUs, in a random order, many at once,
 * so both segments' batches (several stock statements each) lock the same rows at the same time: PostgreSQL detects
 * no deadlock, every checkout completes, and each SKU sold exactly what the checkouts bought, nothing left reserved.
 */
class HotSkuInventoryIT {

    static final int CHECKOUTS = 160;
    static final int CLIENTS = 16;
    static final int HOT_SKUS = 5;
    /** The inventory processor on its default segments (2). */
    static final List<String> SETTINGS = List.of("checkout.demo.sku-count=" + HOT_SKUS);

    PrivateDatabase database;
    JdbcTemplate db;

    @BeforeEach
    void database() throws Exception {
        database = PrivateDatabase.start("hot-sku-pg-");
        db = database.jdbc();
    }

    @AfterEach
    void stop() throws Exception {
        database.close();
    }

    @Test
    void aHotSkuBurstOnTwoInventorySegmentsCompletesWithoutADeadlockAndSellsExactlyWhatWasBought() throws Exception {
        try (InProcessNode node = InProcessNode.start("hot-sku", database.jdbcUrl(), null, SETTINGS)) {
            HttpApi api = new HttpApi(node.port());
            await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM tokenentry"
                    + " WHERE processorname = 'inventory' AND owner IS NOT NULL") >= 2);
            long deadlocksBefore = deadlocks();
            Map<String, Long> bought = new ConcurrentHashMap<>();
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            try {
                List<Future<?>> accepted = new ArrayList<>();
                for (int i = 0; i < CHECKOUTS; i++) {
                    SplittableRandom random = new SplittableRandom(i);
                    accepted.add(clients.submit(() -> {
                        Map<String, Integer> items = hotItems(random);
                        String key = "hot-" + UUID.randomUUID();
                        // admission answers 429 beyond its backlog share: asked again with the same key
                        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).until(() -> {
                            HttpApi.Response r = api.startCheckout(key, body(items));
                            assertThat(r.status()).as(r.body()).isIn(202, 429);
                            return r.status() == 202;
                        });
                        items.forEach((sku, qty) -> bought.merge(sku, (long) qty, Long::sum));
                    }));
                }
                for (Future<?> f : accepted) {
                    f.get();
                }
            } finally {
                clients.shutdown();
            }

            await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500)).until(() -> count(
                    "SELECT count(*) FROM checkout_summary WHERE state IN ('completed', 'manual_review', 'cancelled')")
                    == CHECKOUTS);
            System.out.printf("hot SKUs: %d checkouts on %d SKUs over the inventory's segments; deadlocks %d -> %d%n",
                    CHECKOUTS, HOT_SKUS, deadlocksBefore, deadlocks());
            assertThat(count("SELECT count(*) FROM checkout_summary WHERE state = 'completed'"))
                    .as("every checkout completed").isEqualTo(CHECKOUTS);
            // the statistics reach pg_stat_database within a second of the deadlock: none for 3 s after the burst
            await("PostgreSQL detected no deadlock").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(250)).until(() -> deadlocks() == deadlocksBefore);
            for (Map.Entry<String, Long> sku : new TreeMap<>(bought).entrySet()) {
                Map<String, Object> level = db.queryForMap("SELECT initial_quantity, available, reserved, sold"
                        + " FROM stock WHERE tenant_id = 'demo' AND sku = ?", sku.getKey());
                assertThat(((Number) level.get("sold")).longValue()).as("sold of " + sku.getKey())
                        .isEqualTo(sku.getValue());
                assertThat(((Number) level.get("reserved")).longValue()).as("reserved of " + sku.getKey()).isZero();
                assertThat(((Number) level.get("available")).longValue() + sku.getValue())
                        .as("stock of " + sku.getKey() + " conserved")
                        .isEqualTo(((Number) level.get("initial_quantity")).longValue());
            }
            assertThat(new InvariantChecker(db).violations()).isEmpty();
        }
    }

    /** Two or three distinct hot SKUs in a random order, 1 to 3 units each. */
    private static Map<String, Integer> hotItems(SplittableRandom random) {
        Map<String, Integer> items = new java.util.LinkedHashMap<>();
        int lines = 2 + random.nextInt(2);
        while (items.size() < lines) {
            items.put(String.format("SKU-%04d", 1 + random.nextInt(HOT_SKUS)), 1 + random.nextInt(3));
        }
        return items;
    }

    private static String body(Map<String, Integer> items) {
        StringBuilder lines = new StringBuilder();
        items.forEach((sku, qty) -> lines.append(lines.isEmpty() ? "" : ",")
                .append("{\"sku\":\"").append(sku).append("\",\"quantity\":").append(qty).append('}'));
        return "{\"items\":[" + lines + "],\"amount\":{\"minor\":1000,\"currency\":\"EUR\"},"
                + "\"paymentToken\":\"tok_approve\",\"customerEmail\":\"a@example.com\"}";
    }

    private long deadlocks() {
        return count("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()");
    }

    private long count(String sql, Object... args) {
        Long n = db.queryForObject(sql, Long.class, args);
        return n == null ? 0 : n;
    }
}
