package io.durablecheckout.orchestrator.bench;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.durablecheckout.orchestrator.bench.CheckoutBenchmark.progress;
import static io.durablecheckout.orchestrator.bench.CheckoutBenchmark.round;

/**
 * Overload as a user would cause it: the packaged application as its own process, its processing rate measured
 * first, then an open-loop burst over HTTP at {@code --burst-factor} (2) times that rate for {@code --burst-seconds}
 * (30): requests are sent on schedule whether or not earlier ones were answered. The application runs with
 * {@code checkout.admission.max-backlog=--burst-backlog-limit}. Reports how many were accepted (202) and pushed back
 * (429), the time until every accepted checkout completed, and from the application's own metrics the lease expiries
 * and repeated executions (both must be 0).
 */
final class BurstRun {

    private static final String COMPLETED =
            "SELECT count(*) FROM domainevententry WHERE payloadtype = 'io.durablecheckout.api.checkout.CheckoutCompletedEvent'";
    private static final Duration DRAIN_LIMIT = Duration.ofSeconds(600);

    private final BenchDatabase db;
    private final BenchOptions options;
    private final Path logDirectory;

    BurstRun(BenchDatabase db, BenchOptions options) throws IOException {
        this.db = db;
        this.options = options;
        this.logDirectory = Files.createTempDirectory("checkout-bench-burst-");
    }

    Map<String, Object> run() throws Exception {
        double busyBefore = CheckoutBenchmark.awaitQuietMachine(options, "burst");
        db.reset();
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("run", "burst");
        line.put("host_cpu_busy_pct_before", round(busyBefore, 1));
        BenchOptions withLimit = options.withAppProperty("checkout.admission.max-backlog=" + options.burstBacklogLimit());
        RecoveryRun.Node node = RecoveryRun.Node.start(RecoveryRun.jar(options), db, withLimit,
                logDirectory.resolve("node.log"));
        try {
            node.awaitHealthy(Duration.ofSeconds(180));
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5)).executor(Executors.newFixedThreadPool(8)).build();
            URI uri = URI.create("http://localhost:" + node.port() + "/api/v1/checkouts");

            // 1. the processing rate: a closed loop of 32 clients, until every submitted checkout completed
            int calibration = options.burstCalibration();
            Workload warm = new Workload(options.seed(), "burst-calibration");
            long start = System.nanoTime();
            AtomicInteger next = new AtomicInteger();
            List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < 32; c++) {
                Thread t = new Thread(() -> {
                    int i;
                    while ((i = next.getAndIncrement()) < calibration) {
                        send(client, uri, warm.checkout(i));
                    }
                });
                clients.add(t);
                t.start();
            }
            for (Thread t : clients) {
                t.join();
            }
            awaitCompleted(calibration, Duration.ofSeconds(300));
            double rate = options.burstRate() > 0 ? options.burstRate()
                    : calibration / ((System.nanoTime() - start) / 1e9);
            double burstRate = rate * options.burstFactor();
            progress("burst: processing rate %.0f checkouts/s; sending %.0f/s for %d s", rate, burstRate,
                    options.burstSeconds());
            Map<String, Double> before = scrape(client, node.port());

            // 2. the open-loop burst: one request every 1/burstRate s, each on its own thread of a large pool
            Workload burst = new Workload(options.seed(), "burst");
            AtomicInteger accepted = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            ExecutorService senders = Executors.newFixedThreadPool(256);
            long total = Math.round(burstRate * options.burstSeconds());
            long burstStart = System.nanoTime();
            for (int i = 0; i < total; i++) {
                long due = burstStart + (long) (i * 1e9 / burstRate);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                Workload.Checkout checkout = burst.checkout(i);
                senders.execute(() -> {
                    int status = send(client, uri, checkout);
                    if (status == 202) {
                        accepted.incrementAndGet();
                    } else if (status == 429) {
                        refused.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                    }
                });
            }
            senders.shutdown();
            senders.awaitTermination(120, TimeUnit.SECONDS);
            double sendSeconds = (System.nanoTime() - burstStart) / 1e9;
            progress("burst: sent %d in %.1f s: %d accepted, %d refused (429), %d failed", total, sendSeconds,
                    accepted.get(), refused.get(), failed.get());
            double drained = awaitCompleted(calibration + accepted.get(), DRAIN_LIMIT);
            Map<String, Double> after = scrape(client, node.port());

            line.put("processing_rate_per_s", round(rate, 1));
            line.put("burst_rate_per_s", round(burstRate, 1));
            line.put("burst_seconds", options.burstSeconds());
            line.put("backlog_limit", options.burstBacklogLimit());
            line.put("sent", total);
            line.put("accepted", accepted.get());
            line.put("refused_429", refused.get());
            line.put("failed", failed.get());
            line.put("completed", db.queryLong(COMPLETED) - calibration);
            line.put("burst_start_to_all_done_s", round(drained - (burstStart - start) / 1e9, 1));
            line.put("lease_expired_metric", delta(before, after, "checkout_leases_expired_total"));
            line.put("lease_deferred_metric", delta(before, after, "checkout_leases_deferred_total"));
            line.put("repeated_executions_metric", delta(before, after, "checkout_activity_executions_total",
                    "outcome=\"duplicate\""));
            line.put("stale_executions_metric", delta(before, after, "checkout_activity_executions_total",
                    "outcome=\"stale\""));
            line.put("heartbeats_metric", delta(before, after, "checkout_activity_heartbeats_total"));
            line.put("lease_expired_events", db.queryLong(
                    "SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityLeaseExpiredEvent'"));
            line.put("stale_results_rejected_events", db.queryLong(
                    "SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityResultRejectedEvent'"));
            line.put("app_properties", withLimit.appProperties());
        } finally {
            node.stop();
        }
        return line;
    }

    /** @return seconds since this call until {@code expected} checkouts completed */
    private double awaitCompleted(long expected, Duration limit) throws Exception {
        long start = System.nanoTime();
        while (db.queryLong(COMPLETED) < expected) {
            if (System.nanoTime() - start > limit.toNanos()) {
                throw new IllegalStateException("only " + db.queryLong(COMPLETED) + " of " + expected
                        + " checkouts completed within " + limit + "; see " + logDirectory);
            }
            Thread.sleep(200);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private static int send(HttpClient client, URI uri, Workload.Checkout checkout) {
        try {
            HttpRequest request = HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(60))
                    .header("Authorization", "Bearer " + CheckoutBenchmark.DEMO_API_KEY)
                    .header("Idempotency-Key", checkout.idempotencyKey())
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(checkout.request())))
                    .build();
            return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Sums of the application's Prometheus samples by metric name and (optionally) a label it must carry. */
    static Map<String, Double> scrape(HttpClient client, int port) {
        Map<String, Double> sums = new LinkedHashMap<>();
        try {
            String text = client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                    + "/actuator/prometheus")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            for (String sample : text.split("\n")) {
                if (sample.startsWith("#") || sample.isBlank()) {
                    continue;
                }
                int space = sample.lastIndexOf(' ');
                String key = sample.substring(0, space);
                double value = Double.parseDouble(sample.substring(space + 1));
                sums.merge(key, value, Double::sum);
            }
        } catch (IOException | RuntimeException e) {
            progress("burst: could not read metrics: %s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return sums;
    }

    static long delta(Map<String, Double> before, Map<String, Double> after, String name, String... labels) {
        return Math.round(sum(after, name, labels) - sum(before, name, labels));
    }

    static double sum(Map<String, Double> samples, String name, String... labels) {
        double total = 0;
        for (Map.Entry<String, Double> e : samples.entrySet()) {
            String key = e.getKey();
            if (!(key.equals(name) || key.startsWith(name + "{"))) {
                continue;
            }
            boolean all = true;
            for (String label : labels) {
                all &= key.contains(label);
            }
            if (all) {
                total += e.getValue();
            }
        }
        return total;
    }
}
