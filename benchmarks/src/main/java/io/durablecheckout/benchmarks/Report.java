package io.durablecheckout.benchmarks;

import java.util.Locale;
import java.util.Map;

/** What every run reports the same way: progress on stderr, rounding, the machine before a run, closed-loop figures. */
final class Report {

    private Report() {
    }

    static void progress(String format, Object... args) {
        System.err.printf(Locale.ROOT, "[bench] " + format + "%n", args);
    }

    static Double round(double value, int decimals) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return null;
        }
        double scale = Math.pow(10, decimals);
        return Math.round(value * scale) / scale;
    }

    /**
     * How busy the machine was before a run (2 s sample) and its load average. With {@code --wait-quiet}, first waits
     * until it is below the threshold: on a shared machine someone else's build would otherwise be measured too.
     */
    record Before(double loadAverage, double busyPercent) {

        static Before take(BenchOptions options, String label) throws InterruptedException {
            double load = Resources.loadAverage1m();
            long deadline = System.nanoTime() + options.quietWaitMax().toNanos();
            double busy = Resources.HostCpu.busyPercentOver(2000);
            while (options.quietBelowPercent() > 0 && busy >= options.quietBelowPercent()
                    && System.nanoTime() < deadline) {
                progress("%s: machine %.0f %% busy before start; waiting for it to be below %.0f %%", label, busy,
                        options.quietBelowPercent());
                Thread.sleep(8000);
                busy = Resources.HostCpu.busyPercentOver(2000);
            }
            progress("%s: start (load average %.2f, machine %.0f %% busy before start)", label, load, busy);
            return new Before(load, busy);
        }

        void put(Map<String, Object> line) {
            line.put("load_avg_1m_before", round(loadAverage, 2));
            line.put("host_cpu_busy_pct_before", round(busyPercent, 1));
        }
    }

    /** The figures of a counted closed-loop run, shared by the in-process configurations and the cluster run. */
    static void putClosedLoop(Map<String, Object> line, ClosedLoop.Result run, BenchOptions options, Double ceiling,
                              long events) {
        line.put("n", options.n());
        line.put("warmup", options.warmup());
        line.put("completed", run.completed());
        line.put("checkouts_per_s", round(run.perSecond(), 1));
        line.put("p50_ms", round(run.percentileMillis(50), 1));
        line.put("p95_ms", round(run.percentileMillis(95), 1));
        line.put("p99_ms", round(run.percentileMillis(99), 1));
        line.put("max_ms", round(run.percentileMillis(100), 1));
        line.put("events_per_checkout", round((double) events / options.n(), 2));
        line.put("pg_commit_ceiling_tps", ceiling == null ? null : round(ceiling, 0));
        line.put("ratio_to_ceiling", ceiling == null ? null : round(run.perSecond() / ceiling, 4));
        line.put("errors", run.errors() + run.timeouts());
        if (run.firstError() != null) {
            line.put("first_error", run.firstError());
        }
        line.put("run_s", round(run.seconds(), 1));
    }

    /** One line for a person reading stderr: throughput, latency, cost per checkout. */
    static void summary(String label, Map<String, Object> line, String application) {
        progress("%s: %s checkouts/s, p50 %s ms, p99 %s ms, %s events and %s commits per checkout, %s ms CPU per"
                        + " checkout (%s %s %%, PostgreSQL %s %% of the machine), %s errors",
                label, line.get("checkouts_per_s"), line.get("p50_ms"), line.get("p99_ms"),
                line.get("events_per_checkout"), line.getOrDefault("commits_per_checkout",
                        line.get("commits_per_checkout_incl_startup_and_warmup")),
                line.get("cpu_ms_per_checkout"), application, line.get(application + "_cpu_pct"),
                line.get("pg_cpu_pct"), line.get("errors"));
    }
}
