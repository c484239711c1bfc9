package io.durablecheckout.orchestrator.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.durablecheckout.orchestrator.bench.CheckoutBenchmark.progress;
import static io.durablecheckout.orchestrator.bench.CheckoutBenchmark.round;

/**
 * Throughput with 1, 2, 3… nodes on one PostgreSQL ({@code --cluster=1,2,3}): for each node count, a fresh schema, that
 * many application processes started from the packaged jar (as an operator would, each with its own node id), the
 * standard workload over HTTP spread round-robin over the nodes with C in flight, completions read from the event
 * table. On one machine every node, PostgreSQL and the harness share the same cores: this measures what adding
 * processes costs or gains there, not what separate machines would do (docs/benchmarks.md says how to read it).
 */
final class ClusterRun {

    private final BenchDatabase db;
    private final BenchOptions options;
    private final Path logDirectory;

    ClusterRun(BenchDatabase db, BenchOptions options) throws IOException {
        this.db = db;
        this.options = options;
        this.logDirectory = Files.createTempDirectory("checkout-bench-cluster-");
    }

    List<Map<String, Object>> run() throws Exception {
        List<Map<String, Object>> lines = new ArrayList<>();
        for (int nodes : options.clusterNodes()) {
            for (int concurrency : options.concurrency()) {
                lines.add(run(nodes, concurrency));
            }
        }
        return lines;
    }

    private Map<String, Object> run(int nodeCount, int concurrency) throws Exception {
        String label = "cluster/" + nodeCount + " node(s)/C=" + concurrency;
        double busyBefore = CheckoutBenchmark.awaitQuietMachine(options, label);
        double loadBefore = Resources.loadAverage1m();
        progress("%s: start (load average %.2f); node logs in %s", label, loadBefore, logDirectory);
        db.reset();
        Double ceiling = options.skipCeiling() ? null : db.commitCeiling(16, 10);
        long commitsBefore = db.committedTransactions();
        Path jar = options.jar() != null ? options.jar() : RecoveryRun.packagedJar();
        List<Node> nodes = new ArrayList<>();
        Map<String, Object> line = new LinkedHashMap<>();
        try {
            nodes.add(Node.start(jar, db, options, "cluster-1", logDirectory.resolve(label.replace('/', '_') + "-1.log")));
            nodes.get(0).awaitHealthy(Duration.ofSeconds(240)); // the first one migrates the schema
            for (int i = 2; i <= nodeCount; i++) {
                nodes.add(Node.start(jar, db, options, "cluster-" + i,
                        logDirectory.resolve(label.replace('/', '_') + "-" + i + ".log")));
            }
            for (Node n : nodes) {
                n.awaitHealthy(Duration.ofSeconds(240));
            }
            // the multi-segment processors spread over the nodes before anything is measured
            long balanceStart = System.nanoTime();
            int expectedOwners = Math.min(nodeCount, 4);
            while (db.queryLong("SELECT count(DISTINCT owner) FROM tokenentry WHERE processorname = 'payments'")
                    < expectedOwners && System.nanoTime() - balanceStart < Duration.ofSeconds(60).toNanos()) {
                Thread.sleep(250);
            }
            line.put("run", "cluster");
            line.put("nodes", nodeCount);
            line.put("concurrency", concurrency);
            line.put("transport", "http, round-robin over the nodes");
            AtomicInteger next = new AtomicInteger();
            List<Submitter> perNode = nodes.stream().map(n -> Submitter.http(n.port, CheckoutBenchmark.DEMO_API_KEY)).toList();
            Submitter roundRobin = checkout -> perNode.get(Math.floorMod(next.getAndIncrement(), perNode.size())).submit(checkout);
            try (CompletionWatcher watcher = new CompletionWatcher(db)) {
                ClosedLoop.Result warm = ClosedLoop.run(new Workload(options.seed() + 1, "cluster-warmup"),
                        options.warmup(), concurrency, roundRobin, watcher);
                progress("%s: warm-up %d done in %.1f s", label, warm.completed(), warm.seconds());
                long eventsBefore = db.queryLong("SELECT count(*) FROM domainevententry");
                Map<Long, Long> nodeTicksBefore = Resources.cpuTicks(nodes.stream().map(n -> n.process.toHandle()));
                Map<Long, Long> pgTicksBefore = Resources.cpuTicks(db.serverProcesses());
                Resources.HostCpu hostBefore = Resources.HostCpu.now();
                ClosedLoop.Result run = ClosedLoop.run(new Workload(options.seed(), "cluster-run"), options.n(),
                        concurrency, roundRobin, watcher);
                Resources.HostCpu hostAfter = Resources.HostCpu.now();
                long nodeTicks = Resources.ticksBetween(nodeTicksBefore,
                        Resources.cpuTicks(nodes.stream().map(n -> n.process.toHandle())));
                long pgTicks = Resources.ticksBetween(pgTicksBefore, Resources.cpuTicks(db.serverProcesses()));
                long events = db.queryLong("SELECT count(*) FROM domainevententry") - eventsBefore;
                line.put("n", options.n());
                line.put("warmup", options.warmup());
                line.put("completed", run.completed());
                line.put("checkouts_per_s", round(run.perSecond(), 1));
                line.put("p50_ms", round(run.percentileMillis(50), 1));
                line.put("p95_ms", round(run.percentileMillis(95), 1));
                line.put("p99_ms", round(run.percentileMillis(99), 1));
                line.put("events_per_checkout", round((double) events / options.n(), 2));
                line.put("pg_commit_ceiling_tps", ceiling == null ? null : round(ceiling, 0));
                line.put("ratio_to_ceiling", ceiling == null ? null : round(run.perSecond() / ceiling, 4));
                double host = hostAfter.busyPercentSince(hostBefore);
                double nodeCpu = hostAfter.percentOfCapacity(hostBefore, nodeTicks);
                double pg = hostAfter.percentOfCapacity(hostBefore, pgTicks);
                line.put("host_cpu_busy_pct", round(host, 1));
                line.put("nodes_cpu_pct", round(nodeCpu, 1));
                line.put("pg_cpu_pct", round(pg, 1));
                line.put("other_cpu_pct", round(host - nodeCpu - pg, 1));
                line.put("errors", run.errors() + run.timeouts());
                if (run.firstError() != null) {
                    line.put("first_error", run.firstError());
                }
                line.put("run_s", round(run.seconds(), 1));
                line.put("node_peak_rss_mb", nodes.stream().map(n -> round(Resources.peakRssMb(
                        Long.toString(n.process.pid())), 0)).toList());
            }
        } finally {
            for (Node n : nodes) {
                n.stop();
            }
        }
        // backends flush their statistics when they end: read the commits once every node is gone
        Thread.sleep(1500);
        long commits = db.committedTransactions() - commitsBefore;
        line.put("commits_per_checkout_incl_startup_and_warmup",
                round((double) commits / (options.n() + options.warmup()), 2));
        line.put("node_jvm_options", options.appJvmOptions());
        line.put("load_avg_1m_before", round(loadBefore, 2));
        line.put("host_cpu_busy_pct_before", round(busyBefore, 1));
        progress("%s: %s checkouts/s", label, line.get("checkouts_per_s"));
        return line;
    }

    /** One application process with its own node id. */
    private record Node(Process process, int port, Path log) {

        static Node start(Path jar, BenchDatabase db, BenchOptions options, String nodeId, Path log) throws IOException {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(options.appJvmOptions());
            command.add("-jar");
            command.add(jar.toString());
            command.add("--spring.datasource.url=" + db.url());
            command.add("--spring.datasource.username=" + db.user());
            command.add("--spring.datasource.password=" + db.password());
            command.add("--server.port=" + port);
            command.add("--checkout.processing.node-id=" + nodeId);
            command.addAll(BenchApplication.DEMO_ON_EXTERNAL_DATABASE);
            options.appProperties().forEach(p -> command.add("--" + p));
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            return new Node(process, port, log);
        }

        void awaitHealthy(Duration limit) throws InterruptedException {
            long start = System.nanoTime();
            HttpClient client = HttpClient.newHttpClient();
            while (System.nanoTime() - start < limit.toNanos()) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("node exited with " + process.exitValue() + "; see " + log);
                }
                try {
                    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                            + "/actuator/health")).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200 && r.body().contains("UP")) {
                        return;
                    }
                } catch (IOException e) {
                    // not listening yet
                }
                Thread.sleep(200);
            }
            throw new IllegalStateException("node not healthy within " + limit + "; see " + log);
        }

        void stop() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
