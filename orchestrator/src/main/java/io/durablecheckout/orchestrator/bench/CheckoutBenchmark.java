package io.durablecheckout.orchestrator.bench;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The benchmark command of docs/benchmarks.md: the standard checkout workload (shared/WORKLOAD.md) against the real
 * application, printing one JSON object per configuration on stdout. Everything else (the application's logs, the
 * harness's progress) goes to stderr, so stdout can be piped as JSON lines.
 * <p>
 * Not a Spring component: it lives in the main source tree so it runs from the packaged jar, starts the application
 * itself with {@code SpringApplicationBuilder} for each configuration, and is never started by the application.
 * <pre>
 * java -Dloader.main=io.durablecheckout.orchestrator.bench.CheckoutBenchmark \
 *      -cp orchestrator/target/checkout-orchestrator-0.1.0-SNAPSHOT.jar \
 *      org.springframework.boot.loader.launch.PropertiesLauncher [options]
 * </pre>
 */
public final class CheckoutBenchmark {

    static final String DEMO_API_KEY = "demo-api-key";
    static final int CEILING_CONNECTIONS = 16;
    static final int CEILING_SECONDS = 10;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final BenchOptions options;
    private final BenchDatabase db;
    private final PrintStream out;

    private CheckoutBenchmark(BenchOptions options, BenchDatabase db, PrintStream out) {
        this.options = options;
        this.db = db;
        this.out = out;
    }

    public static void main(String[] args) {
        // stdout carries only the JSON lines; logs (Logback writes to whatever System.out is) go to stderr.
        PrintStream out = System.out;
        System.setOut(System.err);
        if (System.getProperty("axoniq.update-checker.disabled") == null) {
            System.setProperty("axoniq.update-checker.disabled", "true");
        }
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        int status = 0;
        try (BenchDatabase db = BenchDatabase.open(options)) {
            new CheckoutBenchmark(options, db, out).run();
        } catch (Throwable e) {
            e.printStackTrace(System.err);
            status = 1;
        }
        out.flush();
        System.exit(status); // the application's non-daemon threads must not keep the harness alive
    }

    private void run() throws Exception {
        emit(environment());
        if (options.matrix()) {
            warmUpJvm();
            for (String mode : options.modes()) {
                for (String transport : options.transports()) {
                    for (int concurrency : options.concurrency()) {
                        emit(configuration(mode, transport, concurrency));
                    }
                }
            }
        }
        if (options.lag()) {
            emit(new DeadlineLagRun(db, options).run());
        }
        if (options.recovery()) {
            emit(new RecoveryRun(db, options).run());
        }
        if (options.replay()) {
            emit(new ReplayRun(db, options).run());
        }
        if (options.burst()) {
            emit(new BurstRun(db, options).run());
        }
        if (!options.clusterNodes().isEmpty()) {
            for (Map<String, Object> line : new ClusterRun(db, options).run()) {
                emit(line);
            }
        }
    }

    /**
     * Every configuration runs in this one JVM, and code the JIT compiler has compiled stays compiled across
     * application contexts. Without this, the first configuration would pay for compiling Spring, Axon, Jackson and
     * the JDBC driver (on two cores the compiler threads were the busiest threads during a 500-checkout warm-up) and
     * later ones would not: the order of the configurations would decide the figures. So the application runs once
     * in every mode and over every transport of this run before the first measured configuration; nothing of it is
     * reported.
     */
    private void warmUpJvm() throws Exception {
        if (options.jvmWarmup() <= 0) {
            return;
        }
        int perRun = Math.max(1, options.jvmWarmup() / (options.modes().size() * options.transports().size()));
        for (String mode : options.modes()) {
            db.reset();
            List<String> properties = new ArrayList<>(List.of("checkout.processing.mode=" + mode,
                    "checkout.processing.node-id=bench"));
            properties.addAll(options.appProperties());
            try (BenchApplication app = BenchApplication.start(db, properties);
                 CompletionWatcher watcher = new CompletionWatcher(app.eventStore())) {
                for (String transport : options.transports()) {
                    long start = System.nanoTime();
                    ClosedLoop.Result r = ClosedLoop.run(new Workload(options.seed() + 2, "jvm-warmup-" + transport),
                            perRun, 32, submitter(app, transport), watcher);
                    progress("JVM warm-up, %s/%s: %d checkouts in %.0f s (not counted)", mode, transport,
                            r.completed(), (System.nanoTime() - start) / 1e9);
                }
            }
        }
    }

    private static Submitter submitter(BenchApplication app, String transport) {
        return transport.equals("http")
                ? Submitter.http(app.port(), DEMO_API_KEY)
                : Submitter.inProcess(app.checkoutService());
    }

    /** What the figures were measured on: machine, JVM, PostgreSQL and its durability settings. */
    private Map<String, Object> environment() throws Exception {
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("run", "environment");
        env.put("nproc", Runtime.getRuntime().availableProcessors());
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            env.put("memory_mb", os.getTotalMemorySize() / (1024 * 1024));
        }
        env.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        env.put("jvm_args", ManagementFactory.getRuntimeMXBean().getInputArguments());
        env.put("jvm_max_heap_mb", Runtime.getRuntime().maxMemory() / (1024 * 1024));
        env.put("postgres", db.embedded() ? "embedded (harness-started, temporary data directory)" : "external");
        env.putAll(db.settings());
        env.put("load_avg_1m", round(Resources.loadAverage1m(), 2));
        env.put("app_properties", options.appProperties());
        return env;
    }

    /**
     * One (mode, transport, C): a fresh schema, the commit ceiling measured on it, a fresh application context, a
     * warm-up that is not counted, then N checkouts with C in flight.
     */
    private Map<String, Object> configuration(String mode, String transport, int concurrency) throws Exception {
        String label = mode + "/" + transport + "/C=" + concurrency;
        double loadBefore = Resources.loadAverage1m();
        double idleBusy = awaitQuietMachine(options, label);
        progress("%s: start (load average %.2f, machine %.0f %% busy before start)", label, loadBefore, idleBusy);
        db.reset();
        Double ceiling = null;
        if (!options.skipCeiling()) {
            ceiling = db.commitCeiling(CEILING_CONNECTIONS, CEILING_SECONDS);
            progress("%s: commit ceiling %.0f tps", label, ceiling);
        }
        boolean peakReset = Resources.resetPeakRss();
        List<String> properties = new ArrayList<>(List.of("checkout.processing.mode=" + mode,
                "checkout.processing.node-id=bench"));
        properties.addAll(options.appProperties());
        long wallStart = System.nanoTime();
        Map<String, Object> line = new LinkedHashMap<>();
        try (BenchApplication app = BenchApplication.start(db, properties);
             CompletionWatcher watcher = new CompletionWatcher(app.eventStore())) {
            Submitter submitter = submitter(app, transport);
            ClosedLoop.Result warm = ClosedLoop.run(new Workload(options.seed() + 1, "warmup"), options.warmup(),
                    concurrency, submitter, watcher);
            progress("%s: warm-up %d done in %.1f s (%d errors, %d timeouts)", label, warm.completed(),
                    warm.seconds(), warm.errors(), warm.timeouts());

            app.flushDatabaseStatistics();
            Thread.sleep(1500);
            long commitsBefore = db.committedTransactions();
            long eventsBefore = db.queryLong("SELECT count(*) FROM domainevententry");
            long gcBefore = Resources.gcMillis();
            long jvmTicksBefore = Resources.cpuTicks("self");
            Map<Long, Long> pgTicksBefore = Resources.cpuTicks(db.serverProcesses());
            Resources.HostCpu hostBefore = Resources.HostCpu.now();

            ClosedLoop.Result run = ClosedLoop.run(new Workload(options.seed(), "run"), options.n(), concurrency,
                    submitter, watcher);

            Resources.HostCpu hostAfter = Resources.HostCpu.now();
            long jvmTicks = Resources.cpuTicks("self") - jvmTicksBefore;
            long pgTicks = Resources.ticksBetween(pgTicksBefore, Resources.cpuTicks(db.serverProcesses()));
            long gc = Resources.gcMillis() - gcBefore;
            MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
            app.flushDatabaseStatistics();
            Thread.sleep(1500);
            long commits = db.committedTransactions() - commitsBefore;
            long events = db.queryLong("SELECT count(*) FROM domainevententry") - eventsBefore;
            int n = options.n();

            line.put("mode", mode);
            line.put("transport", transport);
            line.put("concurrency", concurrency);
            line.put("n", n);
            line.put("warmup", options.warmup());
            line.put("jvm_warmup", options.jvmWarmup());
            line.put("completed", run.completed());
            line.put("checkouts_per_s", round(run.perSecond(), 1));
            line.put("p50_ms", round(run.percentileMillis(50), 1));
            line.put("p95_ms", round(run.percentileMillis(95), 1));
            line.put("p99_ms", round(run.percentileMillis(99), 1));
            line.put("max_ms", round(run.percentileMillis(100), 1));
            line.put("commits_per_checkout", round((double) commits / n, 2));
            line.put("events_per_checkout", round((double) events / n, 2));
            line.put("pg_commit_ceiling_tps", ceiling == null ? null : round(ceiling, 0));
            line.put("ratio_to_ceiling", ceiling == null ? null : round(run.perSecond() / ceiling, 4));
            line.put("peak_rss_mb", round(Resources.peakRssMb("self"), 0));
            line.put("peak_rss_scope", peakReset ? "harness JVM incl. application, this configuration"
                    : "harness JVM incl. application, since JVM start");
            line.put("jvm_heap_used_mb", heap.getUsed() / (1024 * 1024));
            line.put("jvm_heap_committed_mb", heap.getCommitted() / (1024 * 1024));
            line.put("gc_ms", gc);
            // shares of the machine (100 = every core busy) during the counted run; "other" is everyone else
            double host = hostAfter.busyPercentSince(hostBefore);
            double jvm = hostAfter.percentOfCapacity(hostBefore, jvmTicks);
            double pg = hostAfter.percentOfCapacity(hostBefore, pgTicks);
            line.put("host_cpu_busy_pct", round(host, 1));
            line.put("jvm_cpu_pct", round(jvm, 1));
            line.put("pg_cpu_pct", round(pg, 1));
            line.put("other_cpu_pct", round(host - jvm - pg, 1));
            line.put("errors", run.errors() + run.timeouts());
            if (run.firstError() != null) {
                line.put("first_error", run.firstError());
            }
            line.put("run_s", round(run.seconds(), 1));
            line.put("load_avg_1m_before", round(loadBefore, 2));
            line.put("host_cpu_busy_pct_before", round(idleBusy, 1));
        }
        progress("%s: done in %.0f s", label, (System.nanoTime() - wallStart) / 1e9);
        return line;
    }

    /**
     * How busy the machine is before a configuration starts (2 s sample). With {@code --wait-quiet}, waits until that
     * is below the threshold: on a shared machine someone else's build would otherwise be measured too.
     */
    static double awaitQuietMachine(BenchOptions options, String label) throws InterruptedException {
        long deadline = System.nanoTime() + options.quietWaitMax().toNanos();
        double busy = Resources.HostCpu.busyPercentOver(2000);
        while (options.quietBelowPercent() > 0 && busy >= options.quietBelowPercent() && System.nanoTime() < deadline) {
            progress("%s: machine %.0f %% busy before start; waiting for it to be below %.0f %%", label, busy,
                    options.quietBelowPercent());
            Thread.sleep(8000);
            busy = Resources.HostCpu.busyPercentOver(2000);
        }
        return busy;
    }

    private void emit(Map<String, Object> line) throws Exception {
        out.println(JSON.writeValueAsString(line));
        out.flush();
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
}
