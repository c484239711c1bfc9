package io.durablecheckout.benchmarks;

import io.micrometer.core.instrument.Gauge;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Counted work of one configuration's window (issue 22): what PostgreSQL executed and committed, what the processors
 * were handed, what the JVM allocated and the CPU of each process, from a reset at the start of the counted window
 * until every processor's token has reached the head of the store, divided by the window's checkouts.
 * <p>
 * Statements come from pg_stat_statements (the server must preload it), read and reset from the server's
 * {@code postgres} database so the harness's own reads are not counted; the simulator has a database of its own, so
 * its statements are told apart by database. Transactions are pg_stat_database's commits plus rollbacks. Unlike CPU,
 * these do not move with the host's speed at a fixed workload, N and C.
 */
final class WorkUnits {

    private final BenchDatabase db;
    private final BenchApplication app;
    private final SimulatorProcess simulator;
    private final boolean http;
    private final String database;
    private final boolean statements;
    private final long transactionsBefore;
    private final Map<Long, Long> allocatedBefore;
    private final Map<Long, Long> threadCpuBefore;
    private final long clientAllocatedBefore;
    private final long loadGeneratorCpuBefore;
    private final long deliveriesBefore;
    private final Map<String, long[]> batchesBefore;
    private final Map<Long, Long> simulatorPgBefore;
    private final CpuWindow cpu;

    private WorkUnits(BenchDatabase db, BenchApplication app, SimulatorProcess simulator, boolean http)
            throws Exception {
        this.db = db;
        this.app = app;
        this.simulator = simulator;
        this.http = http;
        this.database = db.databaseName();
        awaitProcessorsAtHead(app, Duration.ofSeconds(60)); // the warm-up's tail is not this window's work
        flushStatistics();
        this.statements = db.statementStatistics();
        this.transactionsBefore = db.transactions(database);
        if (statements) {
            db.resetStatementStatistics();
        }
        this.deliveriesBefore = BenchApplication.DELIVERIES.sum();
        this.batchesBefore = BenchApplication.batches();
        this.simulatorPgBefore = simulator == null ? Map.of() : simulatorBackendTicks();
        this.allocatedBefore = allocatedBytes();
        this.threadCpuBefore = threadCpu(null);
        this.clientAllocatedBefore = ClosedLoop.CLIENT_ALLOCATED_BYTES.sum();
        this.loadGeneratorCpuBefore = loadGeneratorCpuNanos(http);
        this.cpu = CpuWindow.start(() -> Stream.of(ProcessHandle.current()), db,
                simulator == null ? Stream::empty : () -> simulator.processes());
    }

    /** Per processor: events per batch (its fill) and batches per checkout, over the window. */
    private Map<String, Object> batchFill(double checkouts) {
        Map<String, Object> fill = new java.util.TreeMap<>();
        BenchApplication.batches().forEach((name, now) -> {
            long[] before = batchesBefore.getOrDefault(name, new long[2]);
            long events = now[0] - before[0];
            long batches = now[1] - before[1];
            if (batches > 0) {
                fill.put(name, Map.of("events_per_batch", Report.round((double) events / batches, 2),
                        "batches_per_checkout", Report.round(batches / checkouts, 2)));
            }
        });
        return fill;
    }

    static WorkUnits start(BenchDatabase db, BenchApplication app, SimulatorProcess simulator, boolean http)
            throws Exception {
        return new WorkUnits(db, app, simulator, http);
    }

    /**
     * Waits for the processors to reach the head, stops the window and puts the work units into {@code line}.
     *
     * @return the CPU split, for the fields the harness printed before
     */
    CpuWindow.Split stop(Map<String, Object> line, long checkouts, String label, Path statementsDir) throws Exception {
        long drainStart = System.nanoTime();
        boolean atHead = awaitProcessorsAtHead(app, Duration.ofSeconds(120));
        double drainSeconds = (System.nanoTime() - drainStart) / 1e9;
        CpuWindow.Split split = cpu.stop();
        long allocated = allocatedSinceStart();
        long loadGeneratorNanos = loadGeneratorCpuNanos(http) - loadGeneratorCpuBefore;
        long deliveries = BenchApplication.DELIVERIES.sum() - deliveriesBefore;
        long simulatorPgTicks = simulator == null ? 0 : Resources.ticksBetween(simulatorPgBefore, simulatorBackendTicks());
        List<BenchDatabase.StatementCount> counts = statements ? db.statementCounts() : List.of();
        flushStatistics();
        long transactions = db.transactions(database) - transactionsBefore;

        double n = checkouts;
        line.put("work_window", "reset at the counted window's start to every processor at the head"
                + (atHead ? "" : " (NOT reached: timed out)") + ", " + checkouts + " checkouts");
        line.put("drain_s", Report.round(drainSeconds, 2));
        if (statements) {
            Tally app = tally(counts, database);
            line.put("statements_per_checkout", Report.round(app.calls / n, 2));
            line.put("transactions_per_checkout", Report.round(transactions / n, 2));
            line.put("begin_per_checkout", Report.round(app.begins / n, 2));
            line.put("savepoints_per_checkout", Report.round(app.savepoints / n, 2));
            line.put("event_reads_per_checkout", Report.round(app.eventReads / n, 2));
            line.put("event_rows_read_per_checkout", Report.round(app.eventRowsRead / n, 2));
            line.put("event_appends_per_checkout", Report.round(app.eventAppends / n, 2));
            line.put("event_rows_appended_per_checkout", Report.round(app.eventRowsAppended / n, 2));
            line.put("aggregate_loads_per_checkout", Report.round(app.aggregateLoads / n, 2));
            line.put("aggregate_events_loaded_per_checkout", Report.round(app.aggregateEventsLoaded / n, 2));
            line.put("statement_exec_ms_per_checkout", Report.round(app.execMs / n, 3));
            line.put("buffer_accesses_per_checkout", Report.round(app.buffers / n, 1));
            line.put("wal_kb_per_checkout", Report.round(app.walBytes / n / 1024.0, 2));
            if (simulator != null) {
                Tally sim = tally(counts, SimulatorProcess.DATABASE);
                line.put("simulator_statements_per_checkout", Report.round(sim.calls / n, 2));
            }
            if (statementsDir != null) {
                write(statementsDir, label, counts, checkouts);
            }
        } else {
            line.put("statements_per_checkout", null); // the server has no pg_stat_statements preloaded
            line.put("transactions_per_checkout", Report.round(transactions / n, 2));
        }
        line.put("event_deliveries_per_checkout", Report.round(deliveries / n, 2));
        line.put("batch_fill", batchFill(n));
        line.put("allocated_mb_per_checkout", Report.round(allocated / n / (1024.0 * 1024.0), 3));
        double tick = 1000.0 / Resources.CLOCK_TICKS_PER_SECOND;
        double loadGeneratorMs = loadGeneratorNanos / 1e6;
        double jvmMs = split.applicationTicks() * tick;
        Map<String, Object> cpuSplit = new java.util.LinkedHashMap<>();
        cpuSplit.put("app", Report.round((jvmMs - loadGeneratorMs) / n, 2));
        cpuSplit.put("postgres", Report.round((split.postgresTicks() - simulatorPgTicks) * tick / n, 2));
        cpuSplit.put("simulator", Report.round(split.simulatorTicks() * tick / n, 2));
        cpuSplit.put("simulator_postgres", Report.round(simulatorPgTicks * tick / n, 2));
        cpuSplit.put("load_generator", Report.round(loadGeneratorMs / n, 2));
        line.put("cpu_ms_per_checkout_split", cpuSplit);
        line.put("thread_cpu_ms_per_checkout", busyByThreadGroup(n));
        line.put("cpu_ms_per_checkout_all", Report.round(
                (split.applicationTicks() + split.postgresTicks() + split.simulatorTicks()) * tick / n, 2));
        return split;
    }

    /** Per database: statements, BEGINs, savepoints, statements on the event table and their rows. */
    private static final class Tally {
        long calls;
        long begins;
        long savepoints;
        long eventReads;
        long eventRowsRead;
        long eventAppends;
        long eventRowsAppended;
        long aggregateLoads;
        long aggregateEventsLoaded;
        double execMs;
        long buffers;
        long walBytes;
    }

    private static Tally tally(List<BenchDatabase.StatementCount> counts, String database) {
        Tally t = new Tally();
        for (BenchDatabase.StatementCount c : counts) {
            if (!c.database().equals(database)) {
                continue;
            }
            String q = c.query().trim().toLowerCase(Locale.ROOT);
            t.calls += c.calls();
            t.execMs += c.execMs();
            t.buffers += c.buffers();
            t.walBytes += c.walBytes();
            if (q.startsWith("begin")) {
                t.begins += c.calls();
            }
            if (q.startsWith("savepoint") || q.startsWith("release")) {
                t.savepoints += c.calls();
            }
            if (q.contains("domainevententry")) {
                if (q.startsWith("insert")) {
                    t.eventAppends += c.calls();
                    t.eventRowsAppended += c.rows();
                } else {
                    t.eventReads += c.calls();
                    t.eventRowsRead += c.rows();
                    // an aggregate's load reads its stream by identifier; processors read by global index
                    if (q.contains("aggregateidentifier =") && !q.contains("max(")) {
                        t.aggregateLoads += c.calls();
                        t.aggregateEventsLoaded += c.rows();
                    }
                }
            }
        }
        return t;
    }

    private static void write(Path dir, String label, List<BenchDatabase.StatementCount> counts, long checkouts)
            throws IOException {
        Files.createDirectories(dir);
        StringBuilder out = new StringBuilder("database\tcalls_per_checkout\trows_per_checkout\tbuffers_per_call\twal_bytes_per_call\tcalls\trows\tquery\n");
        for (BenchDatabase.StatementCount c : counts) {
            out.append(c.database()).append('\t')
                    .append(String.format(Locale.ROOT, "%.3f\t%.3f", c.calls() / (double) checkouts,
                            c.rows() / (double) checkouts)).append('\t')
                    .append(String.format(Locale.ROOT, "%.1f", c.buffers() / (double) Math.max(1, c.calls()))).append('\t')
                    .append(String.format(Locale.ROOT, "%.0f", c.walBytes() / (double) Math.max(1, c.calls()))).append('\t')
                    .append(c.calls()).append('\t').append(c.rows()).append('\t')
                    .append(c.query().replaceAll("\\s+", " ")).append('\n');
        }
        Files.writeString(dir.resolve(label.replaceAll("[^A-Za-z0-9=_-]", "_") + ".tsv"), out);
    }

    /**
     * Every streaming processor's slowest segment at the head of the store, from the application's own gauge
     * ({@code checkout.processor.lag.events}, EventProcessorMetrics); true when reached.
     */
    static boolean awaitProcessorsAtHead(BenchApplication app, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        int quiet = 0;
        while (System.nanoTime() < deadline) {
            double lag = app.meters().find("checkout.processor.lag.events").gauges().stream()
                    .mapToDouble(Gauge::value).sum();
            quiet = lag == 0 ? quiet + 1 : 0;
            if (quiet >= 3) { // three reads 20 ms apart: nothing appended meanwhile
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    /** PostgreSQL 15 backends flush their statistics when they exit: the pool closes its idle connections. */
    private void flushStatistics() throws InterruptedException {
        app.flushDatabaseStatistics();
        Thread.sleep(1500);
    }

    private Map<Long, Long> simulatorBackendTicks() throws SQLException {
        Map<Long, Long> ticks = new HashMap<>();
        for (long pid : db.backendsOf(SimulatorProcess.DATABASE)) {
            ticks.put(pid, Resources.cpuTicks(Long.toString(pid)));
        }
        return ticks;
    }

    /**
     * CPU so far of each live thread of this JVM, by id; with {@code groups}, also summed per group into it: a pooled
     * processor's coordinator and work packages under the processor's name ({@code Coordinator[payments]-0}), any
     * other thread under its name less its trailing number.
     */
    private static Map<Long, Long> threadCpu(Map<Long, String> groups) {
        Map<Long, Long> nanos = new HashMap<>();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            long cpu = threads.getThreadCpuTime(info.getThreadId());
            if (cpu >= 0) {
                nanos.put(info.getThreadId(), cpu);
                if (groups != null) {
                    groups.put(info.getThreadId(), threadGroup(info.getThreadName()));
                }
            }
        }
        return nanos;
    }

    static String threadGroup(String threadName) {
        int open = threadName.indexOf('[');
        int close = threadName.indexOf(']', open + 1);
        if (open >= 0 && close > open && (threadName.startsWith("Coordinator[") || threadName.startsWith("WorkPackage["))) {
            return "processor " + threadName.substring(open + 1, close);
        }
        return threadName.replaceAll("[-#_ ]?\\d+$", "");
    }

    /**
     * The busy time of this JVM's threads over the window per checkout, by group, largest first (threads that ended
     * inside the window are missed): per processor, the ceiling of one thread is 1,000 ms ÷ this per checkout.
     */
    private Map<String, Object> busyByThreadGroup(double checkouts) {
        Map<Long, String> groups = new HashMap<>();
        Map<Long, Long> now = threadCpu(groups);
        Map<String, Long> byGroup = new HashMap<>();
        now.forEach((id, cpu) -> byGroup.merge(groups.get(id), cpu - threadCpuBefore.getOrDefault(id, 0L), Long::sum));
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        byGroup.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(16)
                .forEach(e -> out.put(e.getKey(), Report.round(e.getValue() / 1e6 / checkouts, 3)));
        return out;
    }

    /** Bytes allocated so far by each live thread of this JVM. */
    private static Map<Long, Long> allocatedBytes() {
        Map<Long, Long> bytes = new HashMap<>();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (threads instanceof com.sun.management.ThreadMXBean sun && sun.isThreadAllocatedMemorySupported()) {
            long[] ids = threads.getAllThreadIds();
            long[] allocated = sun.getThreadAllocatedBytes(ids);
            for (int i = 0; i < ids.length; i++) {
                if (allocated[i] >= 0) {
                    bytes.put(ids[i], allocated[i]);
                }
            }
        }
        return bytes;
    }

    /**
     * What the threads alive at the end allocated since the start, plus what the closed loop's clients (born and
     * gone inside the window) reported at their end; a pool thread that ended inside the window is missed.
     */
    private long allocatedSinceStart() {
        long sum = ClosedLoop.CLIENT_ALLOCATED_BYTES.sum() - clientAllocatedBefore;
        for (Map.Entry<Long, Long> e : allocatedBytes().entrySet()) {
            sum += e.getValue() - allocatedBefore.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }

    /** CPU of the load generator's threads so far: the closed loop's clients (at their end) and the HTTP client's. */
    private static long loadGeneratorCpuNanos(boolean http) {
        if (!http) {
            return 0; // in-process, a client thread runs the application's submit itself: that CPU is the application's
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sum = ClosedLoop.CLIENT_CPU_NANOS.sum();
        for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith("HttpClient-")) {
                sum += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
    }
}
