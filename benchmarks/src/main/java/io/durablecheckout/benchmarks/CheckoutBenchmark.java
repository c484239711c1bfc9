package io.durablecheckout.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.durablecheckout.benchmarks.Report.progress;
import static io.durablecheckout.benchmarks.Report.round;

/**
 * The benchmark command of docs/benchmarks.md: the standard checkout workload (shared/WORKLOAD.md) against the real
 * application, printing one JSON object per configuration on stdout. Everything else (the application's logs, the
 * harness's progress and a one-line summary per configuration) goes to stderr, so stdout can be piped as JSON lines.
 * <p>
 * Its own module and jar, outside the product: it starts the application itself with {@code SpringApplicationBuilder}
 * for each configuration, or the packaged application as separate processes (recovery, burst, cluster).
 * <pre>
 * ./mvnw -B -q -DskipTests package &amp;&amp; java -jar benchmarks/target/checkout-benchmarks.jar [options]
 * </pre>
 */
public final class CheckoutBenchmark {

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

    private static final int WARMUP_ROUNDS = 4;

    /** The provider simulator's own process (--simulator=process, the default) for the matrix's configurations. */
    private SimulatorProcess simulator;

    private List<String> appProperties(String mode) {
        List<String> extra = simulator == null ? List.of() : simulator.applicationProperties();
        return BenchApplication.properties(mode, options, extra.toArray(String[]::new));
    }

    private void run() throws Exception {
        emit(environment());
        if (options.matrix()) {
            if (!softReferencesCleared()) {
                // Spring's static caches hold closed contexts through soft references, which the JVM's default policy
                // keeps while the heap has room: every configuration's context stays in the old generation and later
                // configurations run full collections (docs/benchmarks.md, "How to read the numbers")
                progress("warning: without -XX:SoftRefLRUPolicyMSPerMB=0 this JVM keeps every closed application"
                        + " context (soft references), and later configurations pay full collections for them");
            }
            if (options.simulatorProcess()) {
                simulator = SimulatorProcess.start(db, options);
            }
            try {
                runMatrix();
            } finally {
                if (simulator != null) {
                    simulator.close();
                    simulator = null;
                }
            }
        }
        runOthers();
    }

    private void runMatrix() throws Exception {
        {
            warmUpJvm();
            for (String mode : options.modes()) {
                for (String transport : options.transports()) {
                    for (int concurrency : options.concurrency()) {
                        emit(configuration(mode, transport, concurrency));
                    }
                }
            }
        }
    }

    private void runOthers() throws Exception {
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
        if (options.overload()) {
            emit(new OverloadRun(db, options).run());
        }
        if (!options.storeCurve().isEmpty()) {
            for (Map<String, Object> line : new StoreCurveRun(db, options).run()) {
                emit(line);
            }
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
     * later ones would not: the order of the configurations would decide the figures. So the application runs, in
     * rounds, in every mode and over every transport of this run before the first measured configuration; nothing of
     * it is counted.
     */
    private void warmUpJvm() throws Exception {
        if (options.jvmWarmup() <= 0) {
            return;
        }
        int perRun = Math.max(1, options.jvmWarmup() / (options.modes().size() * options.transports().size()));
        // One round left the first measured configuration compiling (C = 8 first, two pairs alternated: 11.2-11.5 s
        // of JIT time in its window, 13.5-14.0 ms of application CPU, p99 156-167 ms); four rounds, each with a fresh
        // application as every configuration has, left 2.7-3.7 s, 6.9-7.9 ms and 117-140 ms. The JIT never goes
        // quiet (each context brings new generated classes), so the rounds are fixed and their share reported.
        for (int round = 1; round <= WARMUP_ROUNDS; round++) {
            double[] jit = warmUpRound(perRun);
            progress("JVM warm-up round %d of %d: the JIT compiled for %.0f %% of its time (summed over the compiler"
                    + " threads), using %.0f %% of a core", round, WARMUP_ROUNDS, 100 * jit[0], 100 * jit[1]);
        }
    }

    /**
     * @return the JIT's compile time, and its compiler threads' CPU time, over the time the checkouts ran (application
     * starts left out)
     */
    private double[] warmUpRound(int perRun) throws Exception {
        long jitMs = 0;
        long jitCpuMs = 0;
        long runNanos = 0;
        for (String mode : options.modes()) {
            db.reset();
            try (BenchApplication app = BenchApplication.start(db, appProperties(mode));
                 CompletionWatcher watcher = new CompletionWatcher(app.eventStore())) {
                for (String transport : options.transports()) {
                    long start = System.nanoTime();
                    long jitBefore = Resources.jitMillis();
                    long jitCpuBefore = Resources.jitCpuMillis();
                    ClosedLoop.Result r = ClosedLoop.run(new Workload(options.seed() + 2, "jvm-warmup-" + transport)
                            .hot(options.hotSkus()), perRun, 32, submitter(app, transport), watcher);
                    jitMs += Resources.jitMillis() - jitBefore;
                    jitCpuMs += Resources.jitCpuMillis() - jitCpuBefore;
                    runNanos += System.nanoTime() - start;
                    progress("JVM warm-up, %s/%s: %d checkouts in %.0f s (not counted)", mode, transport,
                            r.completed(), (System.nanoTime() - start) / 1e9);
                }
            }
        }
        double runMs = runNanos / 1e6;
        return runNanos == 0 ? new double[]{0, 0} : new double[]{jitMs / runMs, jitCpuMs / runMs};
    }

    private static Submitter submitter(BenchApplication app, String transport) {
        return transport.equals("http") ? Submitter.http(app.port()) : Submitter.inProcess(app.checkoutService());
    }

    private static boolean softReferencesCleared() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-XX:SoftRefLRUPolicyMSPerMB=0");
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
        env.put("clock_ticks_per_s", Resources.CLOCK_TICKS_PER_SECOND); // the unit of /proc's CPU times
        env.put("app_properties", options.appProperties());
        return env;
    }

    /**
     * A fresh schema and, unless {@code --skip-ceiling}, the commit ceiling measured on it: what PostgreSQL on this
     * machine can commit at all, the yardstick of the run's commits.
     */
    static Double freshSchemaAndCeiling(BenchDatabase db, BenchOptions options, String label) throws Exception {
        db.reset();
        if (options.skipCeiling()) {
            return null;
        }
        double ceiling = db.commitCeiling(CEILING_CONNECTIONS, CEILING_SECONDS);
        progress("%s: commit ceiling %.0f tps", label, ceiling);
        return ceiling;
    }

    /**
     * One (mode, transport, C): a fresh schema, the commit ceiling measured on it, a fresh application context, a
     * warm-up that is not counted, then N checkouts with C in flight.
     */
    private Map<String, Object> configuration(String mode, String transport, int concurrency) throws Exception {
        String label = mode + "/" + transport + "/C=" + concurrency;
        Report.Before before = Report.Before.take(options, label);
        Double ceiling = freshSchemaAndCeiling(db, options, label);
        boolean peakReset = Resources.resetPeakRss();
        long wallStart = System.nanoTime();
        Map<String, Object> line = new LinkedHashMap<>();
        try (BenchApplication app = BenchApplication.start(db, appProperties(mode));
             CompletionWatcher watcher = new CompletionWatcher(app.eventStore())) {
            Submitter submitter = submitter(app, transport);
            ClosedLoop.Result warm = ClosedLoop.run(new Workload(options.seed() + 1, "warmup").hot(options.hotSkus()),
                    options.warmup(), concurrency, submitter, watcher);
            progress("%s: warm-up %d done in %.1f s (%d errors, %d timeouts)", label, warm.completed(),
                    warm.seconds(), warm.errors(), warm.timeouts());

            // commits and events are counted from here as before; the work units (issue 22) from the same point to
            // every processor at the head
            WorkUnits work = WorkUnits.start(db, app, simulator, transport.equals("http"));
            long commitsBefore = db.committedTransactions();
            long deadlocksBefore = db.deadlocks();
            long rejectedBefore = rejectedReservations();
            long eventsBefore = db.events();
            long gcBefore = Resources.gcMillis();
            long jitBefore = Resources.jitMillis();
            long jitCpuBefore = Resources.jitCpuMillis();

            ClosedLoop.Result run = ClosedLoop.run(new Workload(options.seed(), "run").hot(options.hotSkus()),
                    options.n(), concurrency, submitter, watcher);

            Map<String, Object> units = new LinkedHashMap<>();
            CpuWindow.Split split = work.stop(units, run.completed(), label, options.statementsDir());
            long gc = Resources.gcMillis() - gcBefore;
            long jit = Resources.jitMillis() - jitBefore;
            long jitCpu = jitCpuBefore < 0 ? -1 : Resources.jitCpuMillis() - jitCpuBefore;
            MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
            long commits = db.committedTransactions() - commitsBefore;
            long events = db.events() - eventsBefore;

            line.put("mode", mode);
            line.put("transport", transport);
            line.put("concurrency", concurrency);
            line.put("jvm_warmup", options.jvmWarmup());
            Report.putClosedLoop(line, run, options, ceiling, events);
            line.put("commits_per_checkout", round((double) commits / options.n(), 2));
            line.put("hot_skus", options.hotSkus() > 0 ? options.hotSkus() : null);
            // PostgreSQL's own count over the counted run (the statistics arrive within a second: read after the wait)
            line.put("deadlocks", db.deadlocks() - deadlocksBefore);
            line.put("reservations_rejected", rejectedReservations() - rejectedBefore); // out of stock, unknown SKU
            line.put("peak_rss_mb", round(Resources.peakRssMb("self"), 0));
            line.put("peak_rss_scope", peakReset ? "harness JVM incl. application, this configuration"
                    : "harness JVM incl. application, since JVM start");
            line.put("jvm_heap_used_mb", heap.getUsed() / (1024 * 1024));
            line.put("jvm_heap_committed_mb", heap.getCommitted() / (1024 * 1024));
            line.put("gc_ms", gc);
            line.put("jit_ms", jit); // compiling still going on: the configuration ran partly on cold code
            // what that compiling cost: the compiler threads' CPU (jit_ms is elapsed, waits for a core included)
            line.put("jit_cpu_ms", jitCpu < 0 ? null : jitCpu);
            // shares of the machine (100 = every core busy) during the counted run; "other" is everyone else
            split.put(line, "jvm", run.completed());
            line.putAll(units);
            line.put("simulator", simulator == null ? "in the application" : "its own process");
            before.put(line);
        }
        Report.summary(label, line, "jvm");
        progress("%s: done in %.0f s", label, (System.nanoTime() - wallStart) / 1e9);
        return line;
    }

    private long rejectedReservations() throws java.sql.SQLException {
        return db.events(List.of("StockReservationRejectedEvent")).getOrDefault("StockReservationRejectedEvent", 0L);
    }

    private void emit(Map<String, Object> line) throws Exception {
        out.println(JSON.writeValueAsString(line));
        out.flush();
    }
}
