package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.FaultMatrix;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.NodeProcess;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Several nodes on one PostgreSQL, as separate OS processes (docs/scaling.md):
 * <ul>
 *   <li>three nodes share the processors' segments, two commands for one checkout on two nodes collide and the loser is
 *   retried, one node is killed with SIGKILL under load and another joins; every checkout completes, no effect is
 *   repeated (counted at the provider simulator and the mail sink), each deadline ran once, the dead node's segments
 *   were taken over within the claim timeout;</li>
 *   <li>the split deployment: the orchestrator and each activity service as its own process from the one jar, meeting
 *   only through the event store, completes the standard workload with the same checks.</li>
 * </ul>
 * Nodes run with small heaps (two cores, several builds): {@link #JVM}. {@code -Dscale.rounds=N} runs N times the
 * mixed workload of the fault matrix (default 2).
 */
class ScaleOutIT {

    static final List<String> JVM = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Xss512k", "-XX:ReservedCodeCacheSize=64m");
    static final Duration CLAIM_TIMEOUT = Duration.ofSeconds(3); // FaultMatrix.NODE_ARGS
    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void threeNodesShareTheWorkSurviveAKillAndAJoin() throws Exception {
        int rounds = Integer.getInteger("scale.rounds", 2);
        try (FaultMatrix.Run r = new FaultMatrix.Run("scale-3-nodes")) {
            List<NodeProcess> live = new CopyOnWriteArrayList<>();
            // the saga partitioned by checkout over four segments (decision 113), so every node can hold a share of it
            List<String> sagaSegments = List.of("--checkout.processing.processors.CheckoutSagaProcessor.segments=4");
            live.add(node(r, "n1", sagaSegments)); // first alone: it migrates the schema
            CompletableFuture<NodeProcess> second = CompletableFuture.supplyAsync(() -> node(r, "n2", sagaSegments));
            CompletableFuture<NodeProcess> third = CompletableFuture.supplyAsync(() -> node(r, "n3", sagaSegments));
            live.add(second.join());
            live.add(third.join());

            // processors share segments: the multi-segment ones spread over the three nodes
            await("payments segments spread over the nodes").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> r.count("SELECT count(DISTINCT owner) FROM tokenentry WHERE processorname = 'payments'") >= 3);
            await("saga segments spread over the nodes").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> r.count("SELECT count(DISTINCT owner) FROM tokenentry WHERE processorname = '"
                            + "CheckoutSagaProcessor'") >= 3);
            JsonNode ownership = processors(live.get(1).port());
            assertThat(ownership.path("node").asText()).isEqualTo("n2");
            assertThat(ownerOf(ownership, "payments")).containsKeys("n1", "n2", "n3");

            concurrentCommandsOnOneCheckout(r, live);

            // the load: the fault matrix's mixed workload, `rounds` times, spread over the live nodes
            long base = r.eventCount();
            AtomicInteger next = new AtomicInteger();
            for (int i = 0; i < rounds; i++) {
                for (FaultMatrix.Order order : FaultMatrix.WORKLOAD) {
                    r.submissions.add(CompletableFuture.runAsync(() -> submit(r, live, next, order), r.clients));
                }
            }
            int total = rounds * FaultMatrix.WORKLOAD.size();
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20))
                    .until(() -> r.eventCount() - base >= total * 4L); // well into the workload

            // SIGKILL the node that runs the saga (the busiest): its claims must move within the claim timeout
            String victimName = r.db.queryForObject("SELECT owner FROM tokenentry WHERE processorname = "
                    + "'CheckoutSagaProcessor' AND segment = 0", String.class);
            NodeProcess victim = live.get(Integer.parseInt(victimName.substring(1)) - 1);
            long killed = System.nanoTime();
            victim.kill9();
            live.remove(victim);
            // another node starts at once (it takes far longer to start than the takeover, which it does not take part in)
            CompletableFuture<NodeProcess> joining = CompletableFuture.supplyAsync(() -> node(r, "n4", sagaSegments));
            r.port.set(live.get(0).port());
            await("every claim of " + victimName + " taken over").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> r.count("SELECT count(*) FROM tokenentry WHERE owner = '" + victimName + "'") == 0);
            double takeover = (System.nanoTime() - killed) / 1e9;
            System.out.printf("SCALE takeover of %s's segments: %.1f s (claim timeout %d s)%n", victimName, takeover,
                    CLAIM_TIMEOUT.toSeconds());
            // a claim can only be taken once it is older than the claim timeout; then at the next claim attempt
            // (0.5 s) plus this machine's scheduling delays (two cores, several builds): allow 10 s more
            assertThat(takeover).as("segments redistributed after the claim timeout").isLessThan(CLAIM_TIMEOUT.toSeconds() + 10.0);

            // the new node joins and gets a share
            live.add(joining.join());
            await("the joining node gets segments").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> r.count("SELECT count(*) FROM tokenentry WHERE owner = 'n4'") > 0);

            FaultMatrix.Result result = r.judge("kill -9 one of three nodes, a fourth joins",
                    total + " checkouts over 3 nodes", 1, killed);
            assertThat(result.violations()).as(result.row()).isEmpty();
            assertThat(result.lost()).as("lost").isZero();
            assertThat(result.duplicated()).as("duplicated side effects").isZero();
            assertThat(result.invisibleStuck()).as("stuck without saying why").isZero();
            assertThat(r.states().values()).as("every checkout settled").allMatch(s ->
                    s.equals("completed") || s.equals("cancelled") || s.equals("manual_review"));
            deadlinesRanOnce(r, 2);
        }
    }

    /**
     * The split deployment: orchestrator, inventory, payments (with the provider simulator, as the provider would be
     * outside) and receipts, four processes from the one jar, meeting only through the event store.
     */
    @Test
    void splitDeploymentCompletesTheStandardWorkload() throws Exception {
        int checkouts = Integer.getInteger("scale.split.checkouts", 40);
        try (FaultMatrix.Run r = new FaultMatrix.Run("scale-split")) {
            List<String> activity = List.of("--checkout.orchestrator.enabled=false", "--checkout.activities.enabled=true",
                    "--checkout.demo.sku-count=1000"); // the standard workload's catalogue
            NodeProcess inventory = node(r, "inventory", concat(activity, "--checkout.simulator.enabled=false",
                    "--checkout.activities.payments.enabled=false", "--checkout.activities.receipts.enabled=false"));
            CompletableFuture<NodeProcess> payments = CompletableFuture.supplyAsync(() -> node(r, "payments",
                    concat(activity, "--checkout.activities.inventory.enabled=false",
                            "--checkout.activities.receipts.enabled=false")));
            CompletableFuture<NodeProcess> receipts = CompletableFuture.supplyAsync(() -> node(r, "receipts",
                    concat(activity, "--checkout.simulator.enabled=false", "--checkout.activities.inventory.enabled=false",
                            "--checkout.activities.payments.enabled=false")));
            CompletableFuture<NodeProcess> orchestrator = CompletableFuture.supplyAsync(() -> node(r, "orchestrator",
                    List.of("--checkout.activities.enabled=false", "--checkout.simulator.enabled=false",
                            "--checkout.demo.sku-count=1000")));
            NodeProcess api = orchestrator.join();
            payments.join();
            receipts.join();
            r.port.set(api.port());

            // each process runs its own processors only
            await().atMost(Duration.ofSeconds(30)).until(() -> r.count("SELECT count(DISTINCT processorname) FROM tokenentry") >= 5);
            Map<String, String> expectedOwner = Map.of("inventory", "inventory", "payments", "payments",
                    "receipts", "receipts", "CheckoutSagaProcessor", "orchestrator", "checkout-summary", "orchestrator");
            await("each processor claimed by its own service").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .untilAsserted(() -> expectedOwner.forEach((processor, owner) -> assertThat(r.db.queryForList(
                            "SELECT DISTINCT owner FROM tokenentry WHERE processorname = ?", String.class, processor))
                            .as(processor).containsExactly(owner)));
            assertThat(runsHere(processors(inventory.port()))).containsExactly("inventory");
            assertThat(runsHere(processors(api.port()))).containsExactlyInAnyOrder("CheckoutSagaProcessor", "checkout-summary");

            // the standard workload (WORKLOAD.md): approve at once, 1 to 3 lines from the catalogue
            for (int i = 0; i < checkouts; i++) {
                int n = i;
                r.submissions.add(CompletableFuture.runAsync(() -> r.accepted.add(submitStandard(r, n)), r.clients));
            }
            FaultMatrix.Result result = r.judge("split deployment", checkouts + " standard checkouts, 4 processes", 1,
                    System.nanoTime());
            assertThat(result.violations()).as(result.row()).isEmpty();
            assertThat(result.duplicated()).as("duplicated side effects").isZero();
            assertThat(r.states().values()).as("every checkout completed").hasSize(checkouts).allMatch("completed"::equals);
            assertThat(r.count("SELECT count(*) FROM mail_sink_messages")).as("one receipt each, at the mail sink")
                    .isEqualTo(checkouts);
            assertThat(r.count("SELECT count(*) FROM simulator_calls WHERE action = 'AUTHORIZE'"))
                    .as("one authorization each, at the provider").isEqualTo(checkouts);
            deadlinesRanOnce(r, 1);
        }
    }

    // ------------------------------------------------------------------------------------------------ parts

    /**
     * Two (three) nodes decide on one checkout at the same moment. The event table is locked for inserts while all
     * three requests load the checkout and try to append, so they are certain to collide on (aggregate, sequence);
     * the loser must be retried on the new history (here: the cancellation is already requested, acknowledged
     * idempotently), never answered 500, and the history must hold one request.
     */
    private void concurrentCommandsOnOneCheckout(FaultMatrix.Run r, List<NodeProcess> nodes) throws Exception {
        r.port.set(nodes.get(0).port());
        String id = r.submit(new FaultMatrix.Order("tok_approve", false));
        await().atMost(Duration.ofSeconds(90)).until(() -> "completed".equals(r.states().get(id)));
        List<Integer> statuses = new CopyOnWriteArrayList<>();
        var tx = new org.springframework.jdbc.datasource.DataSourceTransactionManager(r.db.getDataSource());
        var status = tx.getTransaction(new org.springframework.transaction.support.DefaultTransactionDefinition());
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        try {
            org.springframework.jdbc.datasource.DataSourceUtils.getConnection(r.db.getDataSource()).createStatement()
                    .execute("LOCK TABLE domainevententry IN EXCLUSIVE MODE"); // reads go on, inserts wait
            CountDownLatch go = new CountDownLatch(1);
            for (NodeProcess node : nodes) {
                calls.add(CompletableFuture.runAsync(() -> {
                    try {
                        go.await();
                        HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create("http://localhost:"
                                                + node.port() + "/api/v1/checkouts/" + id + "/cancel"))
                                        .timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + HttpApi.DEMO_KEY)
                                        .header("Content-Type", "application/json")
                                        .POST(HttpRequest.BodyPublishers.ofString("{\"reason\":\"race\"}")).build(),
                                HttpResponse.BodyHandlers.ofString());
                        statuses.add(resp.statusCode());
                        if (resp.statusCode() >= 500) {
                            System.out.println("SCALE concurrent cancel answered " + resp.statusCode() + ": " + resp.body());
                        }
                    } catch (Exception e) {
                        statuses.add(-1);
                    }
                }));
            }
            go.countDown();
            // every request loaded the checkout and now waits to insert its event
            try (var probe = ((javax.sql.DataSource) new org.postgresql.ds.PGSimpleDataSource() {{
                setUrl(r.postgres.jdbcUrl());
                setUser("postgres");
            }}).getConnection()) {
                await("all three appends waiting on the lock").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                        .until(() -> {
                            try (var rs = probe.createStatement().executeQuery("SELECT count(*) FROM pg_stat_activity"
                                    + " WHERE wait_event_type = 'Lock' AND query ILIKE 'insert into domainevententry%'")) {
                                rs.next();
                                return rs.getInt(1) >= nodes.size();
                            }
                        });
            }
        } finally {
            tx.rollback(status); // release the lock: one append wins, the others hit the unique index
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(90, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(statuses).as("no 5xx for a command that lost an append race").allMatch(s -> s == 202);
        assertThat(r.count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = '" + id
                + "' AND payloadtype LIKE '%.CheckoutCancellationRequestedEvent'")).as("one cancellation request").isEqualTo(1);
        long retries = 0;
        for (String n : List.of("n1", "n2", "n3")) {
            Path log = Path.of("target", "matrix-scale-3-nodes-" + n + ".log");
            if (Files.exists(log)) {
                retries += Files.readAllLines(log).stream().filter(l -> l.contains("Will retry")).count();
            }
        }
        System.out.println("SCALE append conflicts retried by the command gateway: " + retries);
        assertThat(retries).as("the losers were retried (Axon logs each retry)").isGreaterThanOrEqualTo(nodes.size() - 1);
        r.accepted.add(id);
    }

    /** Every deadline execution committed once: no db-scheduler task instance ran to a commit twice. */
    private static void deadlinesRanOnce(FaultMatrix.Run r, int minNodes) {
        List<String> twice = r.db.queryForList("SELECT task_instance || ' x' || count(*) || ' on ' || string_agg(node_id, ',')"
                + " FROM deadline_executions GROUP BY task_instance HAVING count(*) > 1", String.class);
        int executions = r.count("SELECT count(*) FROM deadline_executions");
        int nodes = r.count("SELECT count(DISTINCT node_id) FROM deadline_executions");
        System.out.printf("SCALE deadline executions: %d on %d node(s), repeated: %s%n", executions, nodes, twice);
        assertThat(twice).as("deadlines executed more than once").isEmpty();
        if (minNodes > 1) {
            assertThat(executions).as("the workload fired deadlines (retries, reconciliation)").isPositive();
        }
    }

    private NodeProcess node(FaultMatrix.Run r, String name, List<String> extra) {
        List<String> args = new ArrayList<>();
        // a setting given in `extra` replaces the matrix's (a repeated option would read as "a,b")
        FaultMatrix.NODE_ARGS.stream().filter(a -> extra.stream().noneMatch(e -> e.startsWith(a.substring(0, a.indexOf('=') + 1))))
                .forEach(args::add);
        args.add("--checkout.processing.node-id=" + name);
        args.add("--checkout.deadlines.execution-log=true");
        args.add("--checkout.processing.balance-interval=1s");
        args.add("--checkout.datasource.maximum-pool-size=8");
        args.addAll(extra);
        try {
            NodeProcess p = NodeProcess.start("matrix-" + r.name + "-" + name, r.postgres.jdbcUrl(), args, JVM);
            synchronized (r.nodes) {
                r.nodes.add(p);
            }
            return p;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Like the fault matrix's client, but to whichever live node is next, moving on when one is down. */
    private void submit(FaultMatrix.Run r, List<NodeProcess> live, AtomicInteger next, FaultMatrix.Order order) {
        String key = "scale-" + UUID.randomUUID();
        String body = HttpApi.checkoutBody("SKU-00" + (10 + Math.floorMod(key.hashCode(), 40)), 1, 1500, order.token());
        String[] id = new String[1];
        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(200)).until(() -> {
            List<NodeProcess> nodes = List.copyOf(live);
            NodeProcess node = nodes.get(Math.floorMod(next.getAndIncrement(), nodes.size()));
            HttpResponse<String> resp = post(node.port(), "/api/v1/checkouts", key, body);
            if (resp != null && resp.statusCode() == 202) {
                id[0] = resp.body().replaceAll(".*\"checkoutId\":\"([^\"]+)\".*", "$1");
                return true;
            }
            return false;
        });
        r.tokenOf.put(id[0], order.token());
        r.accepted.add(id[0]);
        if (order.cancelWhenCompleted()) {
            r.toCancel.add(id[0]);
        }
    }

    /** One checkout of the standard workload: 1 to 3 lines from SKU-0001..SKU-1000, approved at once. */
    private String submitStandard(FaultMatrix.Run r, int n) {
        java.util.Random random = new java.util.Random(n);
        StringBuilder items = new StringBuilder();
        int lines = 1 + random.nextInt(3);
        java.util.Set<Integer> skus = new java.util.LinkedHashSet<>();
        while (skus.size() < lines) {
            skus.add(1 + random.nextInt(1000));
        }
        for (int sku : skus) {
            items.append(items.isEmpty() ? "" : ",").append(String.format("{\"sku\":\"SKU-%04d\",\"quantity\":%d}", sku,
                    1 + random.nextInt(2)));
        }
        String body = "{\"items\":[" + items + "],\"amount\":{\"minor\":" + (500 + random.nextInt(20000))
                + ",\"currency\":\"EUR\"},\"paymentToken\":\"tok_approve\",\"customerEmail\":\"a@example.com\"}";
        String key = "split-" + n + "-" + UUID.randomUUID();
        String[] id = new String[1];
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> {
            HttpResponse<String> resp = post(r.port.get(), "/api/v1/checkouts", key, body);
            if (resp != null && resp.statusCode() == 202) {
                id[0] = resp.body().replaceAll(".*\"checkoutId\":\"([^\"]+)\".*", "$1");
                return true;
            }
            if (resp != null && resp.statusCode() != 422 && resp.statusCode() != 503 && resp.statusCode() != 429) {
                throw new AssertionError("checkout refused: " + resp.statusCode() + " " + resp.body());
            }
            return false; // 422: the inventory process has not seeded the catalogue yet
        });
        r.tokenOf.put(id[0], "tok_approve");
        return id[0];
    }

    private HttpResponse<String> post(int port, String path, String key, String body) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                    .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer " + HttpApi.DEMO_KEY)
                    .header("Content-Type", "application/json").header("Idempotency-Key", key)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** GET /api/v1/operator/processors with the demo operator key. */
    private JsonNode processors(int port) throws Exception {
        HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                        + "/api/v1/operator/processors")).header("Authorization", "Bearer " + HttpApi.OPERATOR_KEY)
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(resp.statusCode()).as(resp.body()).isEqualTo(200);
        return JSON.readTree(resp.body());
    }

    private static Map<String, Object> ownerOf(JsonNode ownership, String processor) {
        for (JsonNode p : ownership.path("processors")) {
            if (p.path("name").asText().equals(processor)) {
                return JSON.convertValue(p.path("segmentsByOwner"), Map.class);
            }
        }
        return Map.of();
    }

    private static List<String> runsHere(JsonNode ownership) {
        List<String> names = new ArrayList<>();
        ownership.path("processors").forEach(p -> {
            if (p.path("runsHere").asBoolean()) {
                names.add(p.path("name").asText());
            }
        });
        return names;
    }

    private static List<String> concat(List<String> base, String... more) {
        List<String> all = new ArrayList<>(base);
        all.addAll(List.of(more));
        return all;
    }
}
