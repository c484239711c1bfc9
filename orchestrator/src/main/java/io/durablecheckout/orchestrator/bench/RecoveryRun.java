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
 * Recovery after kill -9: the packaged application as its own operating-system process (started with the same
 * {@code java -jar} command an operator uses) on the benchmark's database; checkouts submitted over HTTP; SIGKILL
 * while they are in flight; the same command again; then the time from the second process's start until every
 * accepted checkout is completed, and the side effects that happened more than once (must be none).
 */
final class RecoveryRun {

    private static final String COMPLETED =
            "SELECT count(*) FROM domainevententry WHERE payloadtype = 'io.durablecheckout.api.checkout.CheckoutCompletedEvent'";
    private static final Duration RECOVERY_LIMIT = Duration.ofSeconds(300);

    private final BenchDatabase db;
    private final BenchOptions options;
    private final Path logDirectory;

    RecoveryRun(BenchDatabase db, BenchOptions options) throws IOException {
        this.db = db;
        this.options = options;
        this.logDirectory = Files.createTempDirectory("checkout-bench-recovery-");
    }

    Map<String, Object> run() throws Exception {
        double busyBefore = CheckoutBenchmark.awaitQuietMachine(options, "recovery");
        progress("recovery: start (load average %.2f); node logs in %s", Resources.loadAverage1m(), logDirectory);
        db.reset();
        Path jar = jar(options);
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("run", "recovery");
        line.put("host_cpu_busy_pct_before", round(busyBefore, 1));

        Node first = Node.start(jar, db, options, logDirectory.resolve("node-1.log"));
        long readyMillis = first.awaitHealthy(Duration.ofSeconds(180));
        line.put("first_start_to_ready_s", round(readyMillis / 1000.0, 1));
        int accepted = submit(first.port, options.recoveryCheckouts());
        long doneAtKill = db.queryLong(COMPLETED);
        java.net.http.HttpClient metricsClient = java.net.http.HttpClient.newHttpClient();
        Map<String, Double> firstMetrics = BurstRun.scrape(metricsClient, first.port);
        double firstPeakRss = Resources.peakRssMb(Long.toString(first.process.pid()));
        first.process.destroyForcibly(); // SIGKILL: no shutdown hook, nothing flushed
        first.process.waitFor(30, TimeUnit.SECONDS);
        progress("recovery: killed with %d of %d accepted checkouts completed", doneAtKill, accepted);

        long restart = System.nanoTime();
        Node second = Node.start(jar, db, options, logDirectory.resolve("node-2.log"));
        Double readySeconds = null;
        long completed = 0;
        try {
            while (System.nanoTime() - restart < RECOVERY_LIMIT.toNanos()) {
                if (readySeconds == null && second.healthy()) {
                    readySeconds = (System.nanoTime() - restart) / 1e9;
                }
                completed = db.queryLong(COMPLETED);
                if (completed >= accepted) {
                    break;
                }
                if (!second.process.isAlive()) {
                    throw new IllegalStateException("restarted node exited; see " + second.log);
                }
                Thread.sleep(100);
            }
            double doneSeconds = (System.nanoTime() - restart) / 1e9;
            line.put("checkouts", options.recoveryCheckouts());
            line.put("accepted", accepted);
            line.put("completed_at_kill", doneAtKill);
            line.put("in_flight_at_kill", accepted - doneAtKill);
            line.put("restart_to_ready_s", readySeconds == null ? null : round(readySeconds, 1));
            line.put("restart_to_all_done_s", completed >= accepted ? round(doneSeconds, 1) : null);
            line.put("completed", completed);
            line.put("duplicate_reservations", db.queryLong("SELECT count(*) FROM (SELECT checkout_id"
                    + " FROM inventory_operations WHERE kind = 'RESERVE' GROUP BY checkout_id HAVING count(*) > 1) d"));
            line.put("duplicate_authorizations", db.queryLong("SELECT count(*) FROM (SELECT split_part(operation_id, '/', 1)"
                    + " FROM simulator_authorizations GROUP BY 1 HAVING count(*) > 1) d"));
            line.put("duplicate_receipts", db.queryLong("SELECT count(*) FROM (SELECT split_part(operation_id, '/', 1)"
                    + " FROM outbound_messages GROUP BY 1 HAVING count(*) > 1) d"));
            line.put("stock_conservation_violations", db.queryLong(
                    "SELECT count(*) FROM stock WHERE available + reserved + sold <> initial_quantity"));
            line.put("lease_expired_events", db.queryLong(
                    "SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityLeaseExpiredEvent'"));
            line.put("stale_owner_rejections", db.queryLong(
                    "SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.StaleOwnerRejectedEvent'"));
            // the application's own counters: the first node's just before the kill, the second's at the end
            Map<String, Double> secondMetrics = BurstRun.scrape(metricsClient, second.port);
            Map<String, Double> none = Map.of();
            line.put("lease_expired_metric", BurstRun.delta(none, firstMetrics, "checkout_leases_expired_total")
                    + BurstRun.delta(none, secondMetrics, "checkout_leases_expired_total"));
            line.put("lease_deferred_metric", BurstRun.delta(none, firstMetrics, "checkout_leases_deferred_total")
                    + BurstRun.delta(none, secondMetrics, "checkout_leases_deferred_total"));
            line.put("repeated_executions_metric", BurstRun.delta(none, firstMetrics,
                    "checkout_activity_executions_total", "outcome=\"duplicate\"")
                    + BurstRun.delta(none, secondMetrics, "checkout_activity_executions_total",
                    "outcome=\"duplicate\""));
            line.put("lease_deferred_events", db.queryLong(
                    "SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityLeaseDeferredEvent'"));
            line.put("node_peak_rss_mb_first", round(firstPeakRss, 0));
            line.put("node_peak_rss_mb_restarted", round(Resources.peakRssMb(Long.toString(second.process.pid())), 0));
            line.put("node_jvm_options", options.appJvmOptions());
        } finally {
            second.stop();
        }
        return line;
    }

    /** Submits the checkouts over HTTP, 64 at a time, without waiting for them to complete: they stay in flight. */
    private int submit(int port, int count) throws InterruptedException {
        Submitter http = Submitter.http(port, CheckoutBenchmark.DEMO_API_KEY);
        Workload workload = new Workload(options.seed(), "recovery");
        AtomicInteger next = new AtomicInteger();
        AtomicInteger accepted = new AtomicInteger();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < 64; c++) {
            Thread t = new Thread(() -> {
                int i;
                while ((i = next.getAndIncrement()) < count) {
                    try {
                        http.submit(workload.checkout(i));
                        accepted.incrementAndGet();
                    } catch (Exception e) {
                        progress("recovery: submission failed: %s", e);
                    }
                }
            }, "bench-recovery-client-" + c);
            clients.add(t);
            t.start();
        }
        for (Thread t : clients) {
            t.join();
        }
        return accepted.get();
    }

    static Path jar(BenchOptions options) {
        if (options.jar() != null) {
            return options.jar();
        }
        return packagedJar();
    }

    static Path packagedJar() {
        // Started as documented (java -cp the-jar … PropertiesLauncher): the class path is the application's jar.
        String classPath = System.getProperty("java.class.path");
        if (classPath != null && classPath.endsWith(".jar") && !classPath.contains(java.io.File.pathSeparator)) {
            return Path.of(classPath).toAbsolutePath();
        }
        throw new IllegalStateException("--recovery and --cluster need the packaged application: pass --jar=PATH");
    }

    /** One operating-system process of the application. */
    record Node(Process process, int port, Path log) {

        static Node start(Path jar, BenchDatabase db, BenchOptions options, Path log) throws IOException {
            int port = freePort();
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(options.appJvmOptions());
            command.add("-jar");
            command.add(jar.toString());
            command.add("--spring.datasource.url=" + db.url());
            command.add("--spring.datasource.username=" + db.user());
            command.add("--spring.datasource.password=" + db.password());
            command.add("--server.port=" + port);
            // The same node restarted keeps its id, as a host or a stateful-set ordinal does: it takes its processor
            // segments back at once instead of waiting checkout.processing.claim-timeout for its own dead claims.
            command.add("--checkout.processing.node-id=recovery-node");
            command.addAll(BenchApplication.DEMO_ON_EXTERNAL_DATABASE);
            options.appProperties().forEach(p -> command.add("--" + p));
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            return new Node(process, port, log);
        }

        /** @return milliseconds until the health endpoint answered UP */
        long awaitHealthy(Duration limit) throws InterruptedException {
            long start = System.nanoTime();
            while (System.nanoTime() - start < limit.toNanos()) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("node exited with " + process.exitValue() + "; see " + log);
                }
                if (healthy()) {
                    return (System.nanoTime() - start) / 1_000_000;
                }
                Thread.sleep(100);
            }
            throw new IllegalStateException("node not healthy within " + limit + "; see " + log);
        }

        boolean healthy() {
            try {
                HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                                URI.create("http://localhost:" + port + "/actuator/health"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                return r.statusCode() == 200 && r.body().contains("UP");
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        void stop() throws InterruptedException {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(30, TimeUnit.SECONDS);
                }
            }
        }

        private static int freePort() throws IOException {
            try (ServerSocket s = new ServerSocket(0)) {
                return s.getLocalPort();
            }
        }
    }
}
