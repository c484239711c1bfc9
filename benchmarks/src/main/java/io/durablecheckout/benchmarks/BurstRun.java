package io.durablecheckout.benchmarks;

import io.durablecheckout.orchestrator.it.support.NodeProcess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.durablecheckout.benchmarks.Report.progress;
import static io.durablecheckout.benchmarks.Report.round;

/**
 * Overload as a user would cause it: the packaged application as its own process, its processing rate measured
 * first, then an open-loop burst over HTTP at {@code --burst-factor} (2) times that rate for {@code --burst-seconds}
 * (30): requests are sent on schedule whether or not earlier ones were answered. The application runs with
 * {@code checkout.admission.max-backlog=--burst-backlog-limit}. Reports how many were accepted (202) and pushed back
 * (429), the time until every accepted checkout completed, and from the application's own metrics the lease expiries
 * and repeated executions (both must be 0).
 */
final class BurstRun {

    private static final Duration CALIBRATION_LIMIT = Duration.ofSeconds(300);
    private static final Duration DRAIN_LIMIT = Duration.ofSeconds(600);

    private final BenchDatabase db;
    private final BenchOptions options;

    BurstRun(BenchDatabase db, BenchOptions options) {
        this.db = db;
        this.options = options;
    }

    Map<String, Object> run() throws Exception {
        Report.Before before = Report.Before.take(options, "burst");
        db.reset();
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("run", "burst");
        before.put(line);
        String backlogLimit = "checkout.admission.max-backlog=" + options.burstBacklogLimit();
        AppProcesses processes = new AppProcesses(db, options, "burst");
        NodeProcess node = processes.start("burst-node", "node", backlogLimit);
        try {
            AppProcesses.awaitHealthy(node);
            // answers may take long under overload: the burst's requests wait up to 60 s
            Submitter.Http http = new Submitter.Http(node.port(), Duration.ofSeconds(60));

            // 1. the processing rate: 32 clients submit, then the time until every one of them completed
            int calibration = options.burstCalibration();
            long start = System.nanoTime();
            ClosedLoop.submitAll(new Workload(options.seed(), "burst-calibration"), calibration, 32, http);
            awaitCompleted(calibration, CALIBRATION_LIMIT, processes);
            double rate = options.burstRate() > 0 ? options.burstRate()
                    : calibration / ((System.nanoTime() - start) / 1e9);
            double burstRate = rate * options.burstFactor();
            progress("burst: processing rate %.0f checkouts/s; sending %.0f/s for %d s", rate, burstRate,
                    options.burstSeconds());
            AppMetrics metricsBefore = AppMetrics.scrape(node.port());

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
                    int status = http.status(checkout);
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
            awaitCompleted(calibration + accepted.get(), DRAIN_LIMIT, processes);
            double burstToDone = (System.nanoTime() - burstStart) / 1e9;
            AppMetrics metricsAfter = AppMetrics.scrape(node.port());

            line.put("processing_rate_per_s", round(rate, 1));
            line.put("burst_rate_per_s", round(burstRate, 1));
            line.put("burst_seconds", options.burstSeconds());
            line.put("backlog_limit", options.burstBacklogLimit());
            line.put("sent", total);
            line.put("accepted", accepted.get());
            line.put("refused_429", refused.get());
            line.put("failed", failed.get());
            line.put("completed", db.completedCheckouts() - calibration);
            line.put("burst_start_to_all_done_s", round(burstToDone, 1));
            line.put("lease_expired_metric", metricsAfter.delta(metricsBefore, "checkout_leases_expired_total"));
            line.put("lease_deferred_metric", metricsAfter.delta(metricsBefore, "checkout_leases_deferred_total"));
            line.put("repeated_executions_metric", metricsAfter.delta(metricsBefore,
                    "checkout_activity_executions_total", "outcome=\"duplicate\""));
            line.put("stale_executions_metric", metricsAfter.delta(metricsBefore,
                    "checkout_activity_executions_total", "outcome=\"stale\""));
            line.put("heartbeats_metric", metricsAfter.delta(metricsBefore, "checkout_activity_heartbeats_total"));
            line.put("lease_expired_events", db.events("ActivityLeaseExpiredEvent"));
            line.put("stale_results_rejected_events", db.events("ActivityResultRejectedEvent"));
            List<String> properties = new ArrayList<>(options.appProperties());
            properties.add(backlogLimit);
            line.put("app_properties", properties);
        } finally {
            node.close();
        }
        return line;
    }

    private void awaitCompleted(long expected, Duration limit, AppProcesses processes) throws Exception {
        if (Double.isNaN(db.awaitCompleted(expected, limit, () -> { }))) {
            throw new IllegalStateException("only " + db.completedCheckouts() + " of " + expected
                    + " checkouts completed within " + limit + "; see " + processes.logDirectory());
        }
    }
}
