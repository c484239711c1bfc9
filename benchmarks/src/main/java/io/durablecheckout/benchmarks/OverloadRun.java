package io.durablecheckout.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablecheckout.orchestrator.it.support.NodeProcess;
import io.durablecheckout.orchestrator.tenancy.AdminKeyCommand;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static io.durablecheckout.benchmarks.Report.progress;
import static io.durablecheckout.benchmarks.Report.round;

/**
 * Issue 54's overload, as the packaged application ships (its own process, shipped settings): tenant {@code demo}
 * floods with the simulator's {@code tok_slow} (one second per authorization) from {@code --overload-clients} (6)
 * closed-loop clients for {@code --overload-seconds} (60), while a second tenant, created through the admin API with
 * its own stock, submits {@code tok_approve} at {@code --overload-rate} (5) per second on schedule. Its unloaded p99
 * is measured first, alone. Then it waits until every accepted checkout is terminal and reports, from the event
 * store: lease claims (heartbeats) per intent, lease expiries, deferrals and re-issues, completions per second during
 * the flood against what the payment concurrency allows, and the second tenant's p99 and refusals.
 */
final class OverloadRun {

    private static final Duration DRAIN_LIMIT = Duration.ofSeconds(900);
    private static final String SHOP = "shop-2";
    private static final String SHOP_SKU = "SHOP-1";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final BenchDatabase db;
    private final BenchOptions options;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private int port;

    OverloadRun(BenchDatabase db, BenchOptions options) {
        this.db = db;
        this.options = options;
    }

    record Answer(int status, String checkoutId, String retryAfter) {
    }

    Map<String, Object> run() throws Exception {
        Report.Before before = Report.Before.take(options, "overload");
        db.reset();
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("run", "overload");
        before.put(line);
        // the first admin key of a configured database, as an operator makes it (decision 69); it migrates the schema
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        List<String> command = new ArrayList<>(List.of(AdminKeyCommand.NAME, "--jdbc-url", db.url(), "--jdbc-user",
                db.user()));
        if (db.password() != null && !db.password().isEmpty()) {
            command.addAll(List.of("--jdbc-password", db.password()));
        }
        int code = AdminKeyCommand.run(command.toArray(String[]::new), Map.of(), new PrintStream(printed, true),
                System.err);
        if (code != 0) {
            throw new IllegalStateException("create-admin-key exited with " + code);
        }
        String adminKey = printed.toString().trim();
        AppProcesses processes = new AppProcesses(db, options, "overload");
        NodeProcess node = processes.start("overload-node", "node");
        try {
            AppProcesses.awaitHealthy(node);
            port = node.port();
            require(send("POST", "/api/v1/admin/tenants", adminKey, null,
                    "{\"tenantId\":\"" + SHOP + "\",\"name\":\"Second shop\",\"reason\":\"overload benchmark\"}"), 201);
            HttpResponse<String> issued = require(send("POST", "/api/v1/admin/tenants/" + SHOP + "/keys", adminKey,
                    null, "{\"roles\":[\"tenant\"],\"reason\":\"overload benchmark\"}"), 201);
            String shopKey = JSON.readTree(issued.body()).get("key").asText();
            require(send("POST", "/api/v1/admin/tenants/" + SHOP + "/stock", adminKey, null,
                    "{\"sku\":\"" + SHOP_SKU + "\",\"quantity\":1000000,\"reason\":\"overload benchmark\"}"), 201);

            // 1. the second tenant alone: its unloaded latency, at the same rate
            Map<String, Instant> unloaded = new ConcurrentHashMap<>();
            List<Answer> unloadedAnswers = paced(shopKey, options.overloadRate(), options.overloadBaseline(),
                    unloaded, new AtomicBoolean(true));
            awaitTerminal(Duration.ofSeconds(120));
            double[] unloadedMs = latencies(unloaded);
            progress("overload: second tenant alone: %d of %d admitted, p50 %.0f ms, p99 %.0f ms", unloaded.size(),
                    unloadedAnswers.size(), unloadedMs[0], unloadedMs[1]);

            // 2. the flood, and the second tenant at its rate meanwhile
            AppMetrics metricsBefore = AppMetrics.scrape(port);
            long completedBefore = db.completedCheckouts();
            AtomicBoolean flooding = new AtomicBoolean(true);
            AtomicLong floodAccepted = new AtomicLong();
            AtomicLong floodRefused = new AtomicLong();
            AtomicLong floodFailed = new AtomicLong();
            ExecutorService clients = Executors.newFixedThreadPool(options.overloadClients());
            for (int c = 0; c < options.overloadClients(); c++) {
                int client = c;
                clients.execute(() -> {
                    SplittableRandom random = new SplittableRandom(options.seed() * 31 + client);
                    while (flooding.get()) {
                        Answer a = checkout(BenchApplication.TENANT_KEY,
                                String.format("SKU-%04d", 1 + random.nextInt(Workload.SKUS)), "tok_slow");
                        (a.status() == 202 ? floodAccepted : a.status() == 429 ? floodRefused : floodFailed)
                                .incrementAndGet();
                    }
                });
            }
            long floodStart = System.nanoTime();
            Map<String, Instant> loaded = new ConcurrentHashMap<>();
            int due = (int) Math.round(options.overloadRate() * options.overloadSeconds());
            List<Answer> loadedAnswers = paced(shopKey, options.overloadRate(), due, loaded, flooding);
            long remaining = floodStart + TimeUnit.SECONDS.toNanos(options.overloadSeconds()) - System.nanoTime();
            if (remaining > 0) {
                TimeUnit.NANOSECONDS.sleep(remaining);
            }
            flooding.set(false);
            double floodSeconds = (System.nanoTime() - floodStart) / 1e9;
            long completedDuringFlood = db.completedCheckouts() - completedBefore;
            clients.shutdown();
            clients.awaitTermination(120, TimeUnit.SECONDS);
            progress("overload: flood of %.0f s: %d accepted, %d refused (429), %d failed; %d completed meanwhile",
                    floodSeconds, floodAccepted.get(), floodRefused.get(), floodFailed.get(), completedDuringFlood);
            double drainSeconds = awaitTerminal(DRAIN_LIMIT);
            AppMetrics metricsAfter = AppMetrics.scrape(port);
            double[] loadedMs = latencies(loaded);

            int concurrency = options.appProperties().stream().filter(p -> p.startsWith(
                    "checkout.payments.max-concurrent-calls=")).map(p -> Integer.parseInt(p.substring(p.indexOf('=')
                    + 1))).findFirst().orElse(32);
            line.put("flood_seconds", round(floodSeconds, 1));
            line.put("flood_clients", options.overloadClients());
            line.put("flood_accepted", floodAccepted.get());
            line.put("flood_refused_429", floodRefused.get());
            line.put("flood_failed", floodFailed.get());
            line.put("completions_per_s_during_flood", round(completedDuringFlood / floodSeconds, 1));
            line.put("payment_concurrency_allows_per_s", concurrency); // calls in flight ÷ 1 s per call
            line.put("flood_end_to_all_terminal_s", round(drainSeconds, 1));
            line.put("states_at_end", states());
            line.put("second_tenant_rate_per_s", options.overloadRate());
            line.put("second_tenant_unloaded_p50_ms", round(unloadedMs[0], 0));
            line.put("second_tenant_unloaded_p99_ms", round(unloadedMs[1], 0));
            line.put("second_tenant_sent", loadedAnswers.size());
            line.put("second_tenant_refused", loadedAnswers.stream().filter(a -> a.status() != 202).count());
            line.put("second_tenant_p50_ms", round(loadedMs[0], 0));
            line.put("second_tenant_p99_ms", round(loadedMs[1], 0));
            line.put("second_tenant_steps_unloaded", steps(unloaded));
            line.put("second_tenant_steps_loaded", steps(loaded));
            progress("overload: second tenant's steps, alone %s", line.get("second_tenant_steps_unloaded"));
            progress("overload: second tenant's steps, in the flood %s", line.get("second_tenant_steps_loaded"));
            line.putAll(leaseFigures());
            line.put("lease_expired_metric", metricsAfter.delta(metricsBefore, "checkout_leases_expired_total"));
            line.put("lease_deferred_metric", metricsAfter.delta(metricsBefore, "checkout_leases_deferred_total"));
            line.put("heartbeats_metric", metricsAfter.delta(metricsBefore, "checkout_activity_heartbeats_total"));
            line.put("app_properties", options.appProperties());
        } finally {
            node.close();
        }
        return line;
    }

    /** {@code count} checkouts of the second tenant, one every 1/rate s on schedule (stops early if told to). */
    private List<Answer> paced(String key, double rate, int count, Map<String, Instant> submitted,
                               AtomicBoolean go) throws Exception {
        List<Answer> answers = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService senders = Executors.newFixedThreadPool(16);
        long start = System.nanoTime();
        for (int i = 0; i < count && go.get(); i++) {
            long wait = start + (long) (i * 1e9 / rate) - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            senders.execute(() -> {
                Instant at = Instant.now();
                Answer a = checkout(key, SHOP_SKU, "tok_approve");
                answers.add(a);
                if (a.status() == 202) {
                    submitted.put(a.checkoutId(), at);
                }
            });
        }
        senders.shutdown();
        senders.awaitTermination(120, TimeUnit.SECONDS);
        return answers;
    }

    private Answer checkout(String key, String sku, String token) {
        String body = "{\"items\":[{\"sku\":\"" + sku + "\",\"quantity\":1}],\"amount\":{\"minor\":1000,"
                + "\"currency\":\"EUR\"},\"paymentToken\":\"" + token + "\",\"customerEmail\":\"o@example.com\"}";
        try {
            HttpResponse<String> r = send("POST", "/api/v1/checkouts", key, "overload-" + UUID.randomUUID(), body);
            String id = r.statusCode() == 202 ? JSON.readTree(r.body()).path("checkoutId").asText(null) : null;
            return new Answer(r.statusCode(), id, r.headers().firstValue("Retry-After").orElse(null));
        } catch (IOException e) {
            return new Answer(-1, null, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(-1, null, null);
        }
    }

    private HttpResponse<String> send(String method, String path, String key, String idempotencyKey, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body == null ? "" : body));
        if (idempotencyKey != null) {
            b.header("Idempotency-Key", idempotencyKey);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> require(HttpResponse<String> r, int status) {
        if (r.statusCode() != status) {
            throw new IllegalStateException("HTTP " + r.statusCode() + ": " + r.body());
        }
        return r;
    }

    /** Waits until no checkout is in flight (manual review counts as stopped); seconds it took. */
    private double awaitTerminal(Duration limit) throws Exception {
        long start = System.nanoTime();
        while (db.queryLong("SELECT count(*) FROM checkout_summary WHERE state NOT IN ('completed', 'cancelled',"
                + " 'manual_review')") > 0) {
            if (System.nanoTime() - start > limit.toNanos()) {
                throw new IllegalStateException("checkouts still in flight after " + limit + ": " + states());
            }
            Thread.sleep(500);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private Map<String, Long> states() throws SQLException {
        Map<String, Long> states = new LinkedHashMap<>();
        try (Connection c = db.connect(); ResultSet rs = c.createStatement().executeQuery(
                "SELECT state, count(*) FROM checkout_summary GROUP BY state ORDER BY state")) {
            while (rs.next()) {
                states.put(rs.getString(1), rs.getLong(2));
            }
        }
        return states;
    }

    /** p50 and p99 in ms from submit to the checkout's completion event (the application's clock, same host). */
    private double[] latencies(Map<String, Instant> submitted) throws SQLException {
        List<Double> ms = new ArrayList<>();
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(
                "SELECT aggregateidentifier, timestamp FROM domainevententry WHERE payloadtype LIKE"
                        + " '%.CheckoutCompletedEvent' AND aggregateidentifier = ANY (?)")) {
            s.setArray(1, c.createArrayOf("varchar", submitted.keySet().toArray()));
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    ms.add(Duration.between(submitted.get(rs.getString(1)), Instant.parse(rs.getString(2)))
                            .toNanos() / 1e6);
                }
            }
        }
        if (ms.isEmpty()) {
            return new double[] {Double.NaN, Double.NaN};
        }
        ms.sort(Double::compare);
        return new double[] {ms.get((int) Math.ceil(0.50 * ms.size()) - 1), ms.get((int) Math.ceil(0.99 * ms.size()) - 1)};
    }

    /**
     * Where the second tenant's time goes: from its submission to its first event, then between consecutive events of
     * a checkout (by the pair of event types), p50 and p99 in ms, the slowest p99 first.
     */
    private Map<String, Object> steps(Map<String, Instant> submitted) throws SQLException {
        Map<String, List<Double>> byStep = new LinkedHashMap<>();
        try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(
                "SELECT aggregateidentifier, regexp_replace(payloadtype, '^.*[.$]', ''), timestamp"
                        + " FROM domainevententry WHERE aggregateidentifier = ANY (?)"
                        + " ORDER BY aggregateidentifier, sequencenumber")) {
            s.setArray(1, c.createArrayOf("varchar", submitted.keySet().toArray()));
            try (ResultSet rs = s.executeQuery()) {
                String checkout = null;
                String type = null;
                Instant at = null;
                while (rs.next()) {
                    Instant now = Instant.parse(rs.getString(3));
                    boolean first = !rs.getString(1).equals(checkout);
                    String step = first ? "submit -> " + rs.getString(2) : type + " -> " + rs.getString(2);
                    Instant from = first ? submitted.get(rs.getString(1)) : at;
                    byStep.computeIfAbsent(step, k -> new ArrayList<>()).add(Duration.between(from, now).toNanos() / 1e6);
                    checkout = rs.getString(1);
                    type = rs.getString(2);
                    at = now;
                }
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        byStep.entrySet().stream().map(e -> {
            List<Double> ms = e.getValue();
            ms.sort(Double::compare);
            return Map.entry(e.getKey(), new double[] {ms.get((int) Math.ceil(0.50 * ms.size()) - 1),
                    ms.get((int) Math.ceil(0.99 * ms.size()) - 1), ms.size()});
        }).sorted((a, b) -> Double.compare(b.getValue()[1], a.getValue()[1]))
                .forEach(e -> out.put(e.getKey(), String.format("p50 %.0f, p99 %.0f (n %.0f)", e.getValue()[0],
                        e.getValue()[1], e.getValue()[2])));
        return out;
    }

    /** Intents, re-issues, claims, deferrals and expiries, from the event store. */
    private Map<String, Object> leaseFigures() throws SQLException {
        Map<String, Object> figures = new LinkedHashMap<>();
        String sql = """
                WITH e AS (SELECT payloadtype, convert_from(payload, 'UTF8')::jsonb AS p FROM domainevententry),
                     intents AS (SELECT p -> 'lease' ->> 'operationId' AS op, p -> 'lease' -> 'fencingToken' AS token
                                 FROM e WHERE p ? 'lease'),
                     beats AS (SELECT p ->> 'operationId' AS op, p -> 'fencingToken' AS token, count(*) AS n
                               FROM e WHERE payloadtype LIKE '%.ActivityHeartbeatEvent' GROUP BY 1, 2)
                SELECT (SELECT count(*) FROM intents),
                       (SELECT count(*) - count(DISTINCT op) FROM intents),
                       (SELECT coalesce(sum(n), 0) FROM beats),
                       (SELECT coalesce(max(n), 0) FROM beats),
                       (SELECT count(*) FROM e WHERE payloadtype LIKE '%.ActivityLeaseExpiredEvent'),
                       (SELECT count(*) FROM e WHERE payloadtype LIKE '%.ActivityLeaseDeferredEvent'),
                       (SELECT count(*) FROM e WHERE payloadtype LIKE '%.ActivityLeaseRenewedEvent')""";
        try (Connection c = db.connect(); ResultSet rs = c.createStatement().executeQuery(sql)) {
            rs.next();
            long intents = rs.getLong(1);
            figures.put("intents", intents);
            figures.put("reissues", rs.getLong(2));
            figures.put("reissues_percent", round(intents == 0 ? 0 : 100.0 * rs.getLong(2) / intents, 2));
            figures.put("lease_claims", rs.getLong(3));
            figures.put("most_claims_per_intent", rs.getLong(4));
            figures.put("lease_expiries", rs.getLong(5));
            figures.put("lease_deferrals", rs.getLong(6));
            figures.put("lease_renewals", rs.getLong(7));
        }
        return figures;
    }
}
