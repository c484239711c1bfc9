package io.durablecheckout.orchestrator.bench;

import io.durablecheckout.activities.inventory.DemoStockSeeder;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.orchestrator.checkout.Deadlines;
import io.durablecheckout.orchestrator.service.CheckoutService;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.durablecheckout.orchestrator.bench.CheckoutBenchmark.progress;
import static io.durablecheckout.orchestrator.bench.CheckoutBenchmark.round;

/**
 * Deadline lag: how late lease-expiry deadlines fire (fired − due). No activity worker runs
 * ({@code checkout.activities.enabled=false}), so no result ever arrives and every lease (2 s here) expires; each
 * expiry grants the next lease until the attempt budget sends the checkout to manual review. That makes every
 * checkout a stream of durable deadlines under load.
 * <p>
 * The lag is computed from the stored events; the application's own {@code checkout.deadline.lag} timer is printed
 * next to it ({@code timer_*}) for comparison.
 */
final class DeadlineLagRun {

    private final BenchDatabase db;
    private final BenchOptions options;

    DeadlineLagRun(BenchDatabase db, BenchOptions options) {
        this.db = db;
        this.options = options;
    }

    /**
     * What the application's {@code checkout.deadline.lag} timer says ({@code DeadlineLagInterceptor}: due time from
     * db-scheduler's execution). It should agree with the events; it also counts retry and reconciliation deadlines.
     */
    private static void putTimer(Map<String, Object> line, Timer timer) {
        if (timer == null) {
            line.put("timer_count", 0);
            return;
        }
        HistogramSnapshot snapshot = timer.takeSnapshot();
        line.put("timer_count", snapshot.count());
        for (ValueAtPercentile p : snapshot.percentileValues()) {
            line.put("timer_p" + Math.round(p.percentile() * 100) + "_ms", round(p.value(TimeUnit.MILLISECONDS), 1));
        }
        line.put("timer_max_ms", round(snapshot.max(TimeUnit.MILLISECONDS), 1));
    }

    /**
     * The same lag measured from what was stored, independently of the timer: each {@link
     * io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent} carries the lease it expires (due = its
     * {@code expiresAt}) and was appended by the deadline handler (fired = the event's timestamp).
     */
    private void putFromEvents(Map<String, Object> line) throws Exception {
        double[] r = db.queryDoubles("SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY lag),"
                + " percentile_cont(0.95) WITHIN GROUP (ORDER BY lag), percentile_cont(0.99) WITHIN GROUP (ORDER BY lag),"
                + " max(lag) FROM (SELECT extract(epoch FROM (timestamp::timestamptz"
                + " - (convert_from(payload, 'UTF8')::jsonb #>> '{expiredLease,expiresAt}')::timestamptz)) * 1000 AS lag"
                + " FROM domainevententry WHERE payloadtype = 'io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent') l");
        line.put("count", (long) r[0]);
        line.put("p50_ms", round(r[1], 1));
        line.put("p95_ms", round(r[2], 1));
        line.put("p99_ms", round(r[3], 1));
        line.put("max_ms", round(r[4], 1));
    }

    Map<String, Object> run() throws Exception {
        double busyBefore = CheckoutBenchmark.awaitQuietMachine(options, "deadline lag");
        progress("deadline lag: start (load average %.2f)", Resources.loadAverage1m());
        db.reset();
        List<String> properties = new ArrayList<>(List.of("checkout.processing.mode=tuned",
                "checkout.processing.node-id=bench", "checkout.activities.enabled=false",
                "checkout.workflow.lease-duration=2s"));
        properties.addAll(options.appProperties());
        Map<String, Object> line = new LinkedHashMap<>();
        try (BenchApplication app = BenchApplication.start(db, properties)) {
            // The stock seeder belongs to the (disabled) activities; the SKU check on submission still needs stock.
            new DemoStockSeeder(app.bean(InventoryAdmin.class), Workload.SKUS, 1_000_000).seed();
            CheckoutService service = app.checkoutService();
            Workload workload = new Workload(options.seed(), "lag");
            int count = options.lagCheckouts();
            AtomicInteger next = new AtomicInteger();
            AtomicInteger errors = new AtomicInteger();
            List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < 32; c++) {
                Thread t = new Thread(() -> {
                    int i;
                    while ((i = next.getAndIncrement()) < count) {
                        Workload.Checkout checkout = workload.checkout(i);
                        try {
                            service.submit(Workload.TENANT, checkout.idempotencyKey(), checkout.request());
                        } catch (RuntimeException e) {
                            errors.incrementAndGet();
                        }
                    }
                }, "bench-lag-client-" + c);
                clients.add(t);
                t.start();
            }
            for (Thread t : clients) {
                t.join();
            }
            progress("deadline lag: %d submitted, waiting %s", count, options.lagWait());
            Thread.sleep(options.lagWait().toMillis());

            line.put("run", "deadline_lag");
            line.put("host_cpu_busy_pct_before", round(busyBefore, 1));
            line.put("checkouts", count);
            line.put("submit_errors", errors.get());
            line.put("lease", "2s");
            line.put("waited_s", options.lagWait().toSeconds());
            putTimer(line, app.meters().find("checkout.deadline.lag").tag("deadline", Deadlines.LEASE_EXPIRED).timer());
            putFromEvents(line);
            line.put("lease_expired_events", db.queryLong(
                    "SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityLeaseExpiredEvent'"));
            line.put("manual_review_events", db.queryLong(
                    "SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ManualReviewRequiredEvent'"));
            line.put("deadlines_pending", db.queryLong("SELECT count(*) FROM scheduled_tasks"));
            line.put("load_avg_1m_after", round(Resources.loadAverage1m(), 2));
        }
        return line;
    }
}
