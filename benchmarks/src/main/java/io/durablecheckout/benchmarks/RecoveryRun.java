package io.durablecheckout.benchmarks;

import io.durablecheckout.orchestrator.it.support.NodeProcess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.durablecheckout.benchmarks.Report.progress;
import static io.durablecheckout.benchmarks.Report.round;

/**
 * Recovery after kill -9: the packaged application as its own operating-system process (started with the same
 * {@code java -jar} command an operator uses) on the benchmark's database; checkouts submitted over HTTP; SIGKILL
 * while they are in flight; the same command again; then the time from the second process's start until every
 * accepted checkout is completed, and the side effects that happened more than once (must be none).
 */
final class RecoveryRun {

    private static final Duration RECOVERY_LIMIT = Duration.ofSeconds(300);

    private final BenchDatabase db;
    private final BenchOptions options;

    RecoveryRun(BenchDatabase db, BenchOptions options) {
        this.db = db;
        this.options = options;
    }

    /**
     * Seconds since the restart, and each step's results as the activities appended them and as the checkout
     * recorded them: the hop that lags is the one whose second count trails its first.
     */
    private Map<String, Object> progressAt(double seconds, long after) throws java.sql.SQLException {
        Map<String, Object> point = new LinkedHashMap<>();
        point.put("s", round(seconds, 1));
        Map<String, Long> counts = db.events(STEP_EVENTS, after);
        point.put("completed", counts.remove("CheckoutCompletedEvent"));
        point.putAll(counts);
        return point;
    }

    private static final List<String> STEP_EVENTS = List.of("CheckoutCompletedEvent", "StockReservationSucceededEvent", "StockReservedEvent",
            "PaymentAuthorizationSucceededEvent", "PaymentAuthorizedEvent", "ReceiptDeliverySucceededEvent",
            "ActivityLeaseDeferredEvent");

    private static Map<String, Double> top(Map<String, Double> byThread, int n) {
        Map<String, Double> top = new LinkedHashMap<>();
        byThread.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(n)
                .forEach(e -> top.put(e.getKey(), round(e.getValue(), 1)));
        return top;
    }

    Map<String, Object> run() throws Exception {
        return run(true, "recovery");
    }

    /**
     * @param freshSchema false: on the store as it is (the cost curve's grown store); every count is of the events
     *                    appended from here on
     * @param workload    the generated checkouts' name: another name, other checkout ids and Idempotency-Keys (the
     *                    same ones again would be answered as the checkouts they already are)
     */
    Map<String, Object> run(boolean freshSchema, String workload) throws Exception {
        Report.Before before = Report.Before.take(options, "recovery");
        if (freshSchema) {
            db.reset();
        }
        long after = freshSchema ? -1 : db.queryLong("SELECT coalesce(max(globalindex), 0) FROM domainevententry");
        AppProcesses processes = new AppProcesses(db, options, "recovery");
        progress("recovery: node logs in %s", processes.logDirectory());
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("run", "recovery");
        before.put(line);

        NodeProcess first = processes.start("recovery-node", "node-1");
        long readyMillis = AppProcesses.awaitHealthy(first);
        line.put("first_start_to_ready_s", round(readyMillis / 1000.0, 1));
        // 64 clients submit without waiting for completions: the checkouts stay in flight
        ClosedLoop.Submitted submitted = ClosedLoop.submitAll(new Workload(options.seed(), workload),
                options.recoveryCheckouts(), 64, Submitter.http(first.port()));
        if (submitted.failed() > 0) {
            progress("recovery: %d submissions failed, the first: %s", submitted.failed(), submitted.firstError());
        }
        int accepted = submitted.accepted();
        long doneAtKill = db.completedCheckouts(after);
        AppMetrics firstMetrics = AppMetrics.scrape(first.port());
        double firstPeakRss = Resources.peakRssMb(Long.toString(first.pid()));
        first.kill9(); // SIGKILL: no shutdown hook, nothing flushed
        progress("recovery: killed with %d of %d accepted checkouts completed", doneAtKill, accepted);

        long restart = System.nanoTime();
        NodeProcess second = processes.start("recovery-node", "node-2");
        Double[] readySeconds = {null};
        // where the seconds go: each second, what the restarted node has done so far, and at the end its CPU by thread
        List<Map<String, Object>> timeline = new ArrayList<>();
        Map<String, Double> cpuByThread = new LinkedHashMap<>();
        try {
            double doneSeconds = db.awaitCompleted(accepted, RECOVERY_LIMIT, after, () -> {
                double now = (System.nanoTime() - restart) / 1e9;
                if (readySeconds[0] == null && second.healthy()) {
                    readySeconds[0] = now;
                }
                if (!second.alive()) {
                    throw new IllegalStateException("restarted node exited; see " + second.log());
                }
                if (now >= timeline.size() + 1) {
                    timeline.add(progressAt(now, after));
                    cpuByThread.clear();
                    cpuByThread.putAll(Resources.cpuSecondsByThread(second.pid()));
                }
            });
            double restartToDone = (System.nanoTime() - restart) / 1e9;
            line.put("checkouts", options.recoveryCheckouts());
            line.put("accepted", accepted);
            line.put("completed_at_kill", doneAtKill);
            line.put("in_flight_at_kill", accepted - doneAtKill);
            line.put("restart_to_ready_s", readySeconds[0] == null ? null : round(readySeconds[0], 1));
            line.put("restart_to_all_done_s", Double.isNaN(doneSeconds) ? null : round(restartToDone, 1));
            line.put("completed", db.completedCheckouts(after));
            line.put("duplicate_reservations", db.queryLong("SELECT count(*) FROM (SELECT checkout_id"
                    + " FROM inventory_operations WHERE kind = 'RESERVE' GROUP BY checkout_id HAVING count(*) > 1) d"));
            line.put("duplicate_authorizations", db.queryLong("SELECT count(*) FROM (SELECT split_part(operation_id, '/', 1)"
                    + " FROM simulator_authorizations GROUP BY 1 HAVING count(*) > 1) d"));
            line.put("duplicate_receipts", db.queryLong("SELECT count(*) FROM (SELECT split_part(operation_id, '/', 1)"
                    + " FROM outbound_messages GROUP BY 1 HAVING count(*) > 1) d"));
            line.put("stock_conservation_violations", db.queryLong(
                    "SELECT count(*) FROM stock WHERE available + reserved + sold <> initial_quantity"));
            line.put("lease_expired_events", db.events(List.of("ActivityLeaseExpiredEvent"), after).values().iterator().next());
            line.put("stale_owner_rejections", db.events(List.of("StaleOwnerRejectedEvent"), after).values().iterator().next());
            // the application's own counters: the first node's just before the kill, the second's at the end
            AppMetrics secondMetrics = AppMetrics.scrape(second.port());
            line.put("lease_expired_metric", firstMetrics.delta(AppMetrics.NONE, "checkout_leases_expired_total")
                    + secondMetrics.delta(AppMetrics.NONE, "checkout_leases_expired_total"));
            line.put("lease_deferred_metric", firstMetrics.delta(AppMetrics.NONE, "checkout_leases_deferred_total")
                    + secondMetrics.delta(AppMetrics.NONE, "checkout_leases_deferred_total"));
            line.put("repeated_executions_metric", firstMetrics.delta(AppMetrics.NONE,
                    "checkout_activity_executions_total", "outcome=\"duplicate\"")
                    + secondMetrics.delta(AppMetrics.NONE, "checkout_activity_executions_total",
                    "outcome=\"duplicate\""));
            line.put("lease_deferred_events", db.events(List.of("ActivityLeaseDeferredEvent"), after).values().iterator().next());
            line.put("node_peak_rss_mb_first", round(firstPeakRss, 0));
            line.put("node_peak_rss_mb_restarted", round(Resources.peakRssMb(Long.toString(second.pid())), 0));
            line.put("node_jvm_options", options.appJvmOptions());
            line.put("restarted_node_cpu_s_by_thread", top(cpuByThread, 12)); // last reading, at most a second early
            line.put("recovery_timeline", timeline);
        } finally {
            second.close();
        }
        return line;
    }
}
