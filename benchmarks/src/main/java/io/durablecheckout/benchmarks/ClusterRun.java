package io.durablecheckout.benchmarks;

import io.durablecheckout.orchestrator.it.support.NodeProcess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static io.durablecheckout.benchmarks.Report.progress;
import static io.durablecheckout.benchmarks.Report.round;

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

    ClusterRun(BenchDatabase db, BenchOptions options) {
        this.db = db;
        this.options = options;
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

    /**
     * Each node's pool may grow to 24 + the payment calls in flight (56 as shipped): past the server's
     * {@code max_connections} the last connections are refused, a node or the harness waits, and the run stalls.
     */
    private void requireConnections(int nodeCount) throws java.sql.SQLException {
        int pool = appProperty("checkout.datasource.maximum-pool-size")
                .orElse(24 + appProperty("checkout.payments.max-concurrent-calls").orElse(32));
        long allowed = db.queryLong("SELECT setting::bigint FROM pg_settings WHERE name = 'max_connections'");
        long needed = (long) nodeCount * pool + 10; // the harness, the simulator and an operator's psql
        if (needed > allowed) {
            throw new IllegalStateException("--cluster=" + nodeCount + ": the nodes may open " + nodeCount * pool
                    + " connections (checkout.datasource.maximum-pool-size, 24 + checkout.payments.max-concurrent-calls"
                    + " by default) and the server allows " + allowed + " (max_connections): raise max_connections to "
                    + needed + " or pass --app-property=checkout.datasource.maximum-pool-size=N");
        }
    }

    /** A whole-number {@code --app-property} given for every node, if any. */
    private java.util.Optional<Integer> appProperty(String name) {
        return options.appProperties().stream().filter(p -> p.startsWith(name + "="))
                .map(p -> Integer.parseInt(p.substring(name.length() + 1).trim())).findFirst();
    }

    private Map<String, Object> run(int nodeCount, int concurrency) throws Exception {
        String label = "cluster/" + nodeCount + " node(s)/C=" + concurrency;
        Report.Before before = Report.Before.take(options, label);
        requireConnections(nodeCount);
        Double ceiling = CheckoutBenchmark.freshSchemaAndCeiling(db, options, label);
        long commitsBefore = db.committedTransactions();
        long deadlocksBefore = db.deadlocks();
        AppProcesses processes = new AppProcesses(db, options, "cluster");
        progress("%s: node logs in %s", label, processes.logDirectory());
        String logPrefix = label.replace('/', '_').replace(' ', '_') + "-";
        List<NodeProcess> nodes = new ArrayList<>();
        Map<String, Object> line = new LinkedHashMap<>();
        try {
            nodes.add(processes.start("cluster-1", logPrefix + 1));
            AppProcesses.awaitHealthy(nodes.get(0)); // the first one migrates the schema
            for (int i = 2; i <= nodeCount; i++) {
                nodes.add(processes.start("cluster-" + i, logPrefix + i));
            }
            for (NodeProcess n : nodes) {
                AppProcesses.awaitHealthy(n);
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
            List<Submitter> perNode = nodes.stream().map(n -> (Submitter) Submitter.http(n.port())).toList();
            Submitter roundRobin = checkout -> perNode.get(Math.floorMod(next.getAndIncrement(), perNode.size())).submit(checkout);
            try (CompletionWatcher watcher = new CompletionWatcher(db)) {
                ClosedLoop.Result warm = ClosedLoop.run(new Workload(options.seed() + 1, "cluster-warmup")
                        .hot(options.hotSkus()), options.warmup(), concurrency, roundRobin, watcher);
                progress("%s: warm-up %d done in %.1f s", label, warm.completed(), warm.seconds());
                long eventsBefore = db.events();
                CpuWindow cpu = CpuWindow.start(() -> nodes.stream().map(NodeProcess::handle), db);
                ClosedLoop.Result run = ClosedLoop.run(new Workload(options.seed(), "cluster-run")
                        .hot(options.hotSkus()), options.n(), concurrency, roundRobin, watcher);
                CpuWindow.Split split = cpu.stop();
                long events = db.events() - eventsBefore;
                Report.putClosedLoop(line, run, options, ceiling, events);
                split.put(line, "nodes", run.completed());
                line.put("node_peak_rss_mb", nodes.stream().map(n -> round(Resources.peakRssMb(
                        Long.toString(n.pid())), 0)).toList());
            }
        } finally {
            for (NodeProcess n : nodes) {
                n.close();
            }
        }
        // backends flush their statistics when they end: read the commits once every node is gone
        Thread.sleep(1500);
        long commits = db.committedTransactions() - commitsBefore;
        line.put("commits_per_checkout_incl_startup_and_warmup",
                round((double) commits / (options.n() + options.warmup()), 2));
        line.put("hot_skus", options.hotSkus() > 0 ? options.hotSkus() : null);
        line.put("deadlocks_incl_startup_and_warmup", db.deadlocks() - deadlocksBefore);
        line.put("node_jvm_options", options.appJvmOptions());
        before.put(line);
        Report.summary(label, line, "nodes");
        return line;
    }
}
