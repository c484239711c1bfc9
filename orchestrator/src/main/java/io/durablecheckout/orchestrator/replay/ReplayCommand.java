package io.durablecheckout.orchestrator.replay;

import io.durablecheckout.orchestrator.cli.CommandLineOptions;
import io.durablecheckout.orchestrator.serialization.EventUpcasters;
import ch.qos.logback.classic.Level;
import io.durablecheckout.orchestrator.serialization.AxonJson;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The command line of the same jar (docs/replay.md): no Spring, no web server, no processors, no deadlines; it only
 * reads the event store.
 * <pre>
 *   replay --checkout ID | --file BUNDLE | --all [--since T]   [database options]
 *   export --checkout ID [--out FILE]                          [database options]
 *   database options: --jdbc-url URL [--jdbc-user U] [--jdbc-password P] | --data-dir DIR (default ./data)
 * </pre>
 * Exit code 0: every history replayed identically; 1: a divergence (or a history that cannot be replayed);
 * 2: bad usage, no database, or a bundle that is not a checkout's history (one naming a type that is not the
 * checkout's own is refused before that type is looked up: {@link ReplayTypes}).
 */
public final class ReplayCommand {

    static final String USAGE = """
            usage: ./checkout replay (--checkout ID | --file BUNDLE | --all [--since T])
                                     [--threads N] [--show N] [database]
                   ./checkout export --checkout ID [--out FILE] [database]
              database: --jdbc-url URL [--jdbc-user USER] [--jdbc-password PASSWORD]
                        | --data-dir DIR   the embedded database (default ./data; a running orchestrator's is
                                           read through its own server)
              --since T   checkouts created at or after T (2026-01-01 or 2026-01-01T10:00:00Z)
              --show N    with --all, how many divergence reports to print (default 3)
            exit code: 0 identical, 1 any divergence or unreplayable history, 2 usage, database or bundle error
            """;

    private final PrintStream out;
    private final PrintStream err;
    private final Function<Path, EmbeddedDatabase> embedded;

    /**
     * An embedded PostgreSQL started on a data directory for the run. The application supplies the server (its own
     * embedded one): replay reads a database, it does not know how one is started.
     */
    public interface EmbeddedDatabase extends AutoCloseable {
        String jdbcUrl();

        @Override
        void close();
    }

    ReplayCommand(PrintStream out, PrintStream err, Function<Path, EmbeddedDatabase> embedded) {
        this.out = out;
        this.err = err;
        this.embedded = embedded;
    }

    /**
     * Runs a command line ({@code args[0]} is "replay" or "export") and returns its exit code; {@code embedded}
     * starts the embedded database on a data directory when no server runs on it.
     */
    public static int run(String[] args, PrintStream out, PrintStream err, Function<Path, EmbeddedDatabase> embedded) {
        quietLogging();
        return new ReplayCommand(out, err, embedded).execute(args);
    }

    int execute(String[] args) {
        Map<String, String> options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.print(USAGE);
            return 2;
        }
        String command = args[0];
        try {
            if (command.equals("replay") && options.containsKey("file")) {
                return replayFile(Path.of(options.get("file")));
            }
            try (Database db = Database.open(options, embedded)) {
                StoredHistories histories = new StoredHistories(db.dataSource(),
                        AxonJson.strictEventSerializer(), EventUpcasters.chain());
                if (command.equals("export")) {
                    return export(histories, options.get("checkout"), options.get("out"));
                }
                if (options.containsKey("checkout")) {
                    return replayOne(histories, options.get("checkout"));
                }
                return replayAll(histories, since(options.get("since")),
                        Integer.parseInt(options.getOrDefault("threads",
                                Integer.toString(Runtime.getRuntime().availableProcessors()))),
                        Integer.parseInt(options.getOrDefault("show", "3")));
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
    }

    private int replayFile(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no bundle at " + file);
        }
        StoredHistories.History history;
        try {
            history = HistoryBundle.read(file);
        } catch (ReplayTypes.RefusedTypeException e) {
            throw new IllegalArgumentException("bundle " + file + " " + e.getMessage(), e);
        } catch (RuntimeException e) { // unreadable JSON, or an event today's code cannot read: the file's fault
            throw new IllegalArgumentException("cannot read bundle " + file + ": " + e.getMessage(), e);
        }
        ReplayReport report = new CheckoutReplayer().replay(history);
        out.print(report.render());
        return report.identical() ? 0 : 1;
    }

    private int replayOne(StoredHistories histories, String checkoutId) {
        StoredHistories.History history = histories.load(checkoutId);
        if (history == null) {
            throw new IllegalArgumentException("no checkout " + checkoutId + " in the event store");
        }
        ReplayReport report = new CheckoutReplayer().replay(history);
        out.print(report.render());
        return report.identical() ? 0 : 1;
    }

    private int export(StoredHistories histories, String checkoutId, String target) {
        StoredHistories.History history = histories.load(checkoutId);
        if (history == null) {
            throw new IllegalArgumentException("no checkout " + checkoutId + " in the event store");
        }
        Path file = Path.of(target != null ? target : "checkout-" + checkoutId + ".json");
        HistoryBundle.write(HistoryBundle.export(history, Clock.systemUTC().instant()), file);
        out.println("wrote " + file + " (" + history.events().size() + " events, personal fields redacted)");
        return 0;
    }

    /** What a replay of many histories found. */
    /** @param cpuSeconds CPU time of the replaying threads (a figure that does not depend on how busy the host is) */
    public record Summary(long histories, long events, double seconds, double cpuSeconds, long identical,
                          List<ReplayReport> failed) {
        public long diverged() {
            return failed.stream().filter(r -> r.verdict() == ReplayReport.Verdict.DIVERGED).count();
        }

        public long notReplayable() {
            return failed.size() - diverged();
        }

        public double historiesPerSecond() {
            return histories / Math.max(seconds, 1e-9);
        }

        public double historiesPerCpuSecond() {
            return histories / Math.max(cpuSeconds, 1e-9);
        }
    }

    private int replayAll(StoredHistories histories, Instant since, int threads, int show) {
        long total = histories.count(since);
        out.println("replaying " + total + " checkout(s)" + (since == null ? "" : " created since " + since)
                + " with " + threads + " thread(s)");
        if (total >= 1_000 && java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .noneMatch(a -> a.startsWith("-XX:TieredStopAtLevel"))) {
            // a run of seconds: the optimizing compiler costs more than it saves (docs/decisions.md §58)
            out.println("hint: a bulk replay runs about twice as fast started with -XX:TieredStopAtLevel=1 "
                    + "(docs/replay.md)");
        }
        Summary summary = replayAll(histories, since, threads, total, err);
        List<ReplayReport> reports = summary.failed();
        reports.stream().limit(show).forEach(r -> out.print(r.render()));
        out.printf("summary: %d histories, %d events in %.2f s (%.0f histories/s; %.0f per CPU-second): %d identical, "
                        + "%d diverged, %d not replayable%n", summary.histories(), summary.events(), summary.seconds(),
                summary.historiesPerSecond(), summary.historiesPerCpuSecond(), summary.identical(), summary.diverged(),
                summary.notReplayable());
        if (!reports.isEmpty()) {
            out.println("first differing checkouts: " + reports.stream().limit(20).map(ReplayReport::checkoutId).toList());
        }
        return reports.isEmpty() ? 0 : 1;
    }

    /**
     * Every checkout (created since {@code since}): one thread reads raw rows in (checkout, sequence) order, the
     * others deserialize and replay. A progress bar on {@code progressOut} (null: none).
     */
    public static Summary replayAll(StoredHistories histories, Instant since, int threads, long total,
                                    PrintStream progressOut) {
        BlockingQueue<StoredHistories.History> queue = new ArrayBlockingQueue<>(4_096);
        StoredHistories.History end = new StoredHistories.History(null, List.of(), List.of());
        AtomicLong identical = new AtomicLong();
        AtomicLong events = new AtomicLong();
        ConcurrentLinkedQueue<ReplayReport> failed = new ConcurrentLinkedQueue<>();
        AtomicLong done = new AtomicLong();
        AtomicLong cpuNanos = new AtomicLong();
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < Math.max(1, threads); t++) {
            Thread worker = new Thread(() -> {
                CheckoutReplayer replayer = new CheckoutReplayer();
                try {
                    for (StoredHistories.History raw = queue.take(); raw != end; raw = queue.take()) {
                        ReplayReport report;
                        try {
                            // most histories replay identically: a verdict from the lean reading, and only
                            // the others are read in full and replayed again for their reports
                            report = replayer.quick(histories.historyForVerdict(raw.checkoutId(), raw.rows()));
                            if (!report.identical()) {
                                report = replayer.replay(histories.history(raw.checkoutId(), raw.rows()));
                            }
                        } catch (RuntimeException e) { // e.g. an event today's code cannot read: reported, not fatal
                            report = new ReplayReport(raw.checkoutId(), raw.rows().size(), List.of(),
                                    ReplayReport.Verdict.NOT_REPLAYABLE, null, e.toString());
                        }
                        events.addAndGet(report.events());
                        if (report.identical()) {
                            identical.incrementAndGet();
                        } else {
                            failed.add(report);
                        }
                        done.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    cpuNanos.addAndGet(Math.max(0, cpu.getCurrentThreadCpuTime()));
                }
            }, "replay-" + t);
            worker.start();
            workers.add(worker);
        }
        long started = System.nanoTime();
        Progress progress = progressOut == null ? null : new Progress(progressOut, total);
        Thread bar = new Thread(() -> {
            while (progress != null && !Thread.currentThread().isInterrupted()) {
                progress.show(done.get(), started);
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "replay-progress");
        bar.setDaemon(true);
        bar.start();
        try {
            histories.forEachRaw(since, raw -> {
                try {
                    queue.put(raw);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted");
                }
            });
            for (int t = 0; t < workers.size(); t++) {
                queue.put(end);
            }
            for (Thread worker : workers) {
                worker.join();
            }
            bar.interrupt();
            bar.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        if (progress != null) {
            progress.show(done.get(), started);
            progress.finish();
        }
        return new Summary(done.get(), events.get(), seconds, cpuNanos.get() / 1e9, identical.get(),
                new ArrayList<>(failed));
    }

    // ------------------------------------------------------------------------------------------- plumbing

    static Map<String, String> parse(String[] args) {
        if (args.length == 0 || !(args[0].equals("replay") || args[0].equals("export"))) {
            throw new IllegalArgumentException("expected 'replay' or 'export'");
        }
        Map<String, String> options = CommandLineOptions.parse(args, List.of("all"), List.of("checkout", "file",
                "since", "jdbc-url", "jdbc-user", "jdbc-password", "data-dir", "out", "threads", "show"));
        int targets = (options.containsKey("checkout") ? 1 : 0) + (options.containsKey("file") ? 1 : 0)
                + (options.containsKey("all") ? 1 : 0);
        if (args[0].equals("replay") && targets != 1) {
            throw new IllegalArgumentException("replay takes exactly one of --checkout, --file, --all");
        }
        if (args[0].equals("export") && !options.containsKey("checkout")) {
            throw new IllegalArgumentException("export needs --checkout");
        }
        if (options.containsKey("since") && !options.containsKey("all")) {
            throw new IllegalArgumentException("--since goes with --all");
        }
        for (String n : List.of("threads", "show")) {
            if (options.containsKey(n)) {
                try {
                    if (Integer.parseInt(options.get(n)) < (n.equals("show") ? 0 : 1)) {
                        throw new NumberFormatException();
                    }
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--" + n + " must be a positive number");
                }
            }
        }
        since(options.get("since")); // validates
        return options;
    }

    static Instant since(String value) {
        if (value == null) {
            return null;
        }
        try {
            return value.length() == 10 ? LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant()
                    : Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("--since takes a date (2026-01-01) or an instant "
                    + "(2026-01-01T10:00:00Z), not '" + value + "'");
        }
    }

    private static void quietLogging() {
        if (LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME) instanceof ch.qos.logback.classic.Logger root) {
            root.setLevel(Level.WARN);
        }
    }

    /** A progress bar on one line of stderr, redrawn in place. */
    static final class Progress {
        private final PrintStream err;
        private final long total;
        private boolean drawn;

        Progress(PrintStream err, long total) {
            this.err = err;
            this.total = total;
        }

        synchronized void show(long done, long startedNanos) {
            if (total < 1) {
                return;
            }
            int width = 40;
            int filled = (int) Math.min(width, width * done / total);
            double seconds = Math.max((System.nanoTime() - startedNanos) / 1e9, 1e-9);
            err.printf("\r[%s%s] %d/%d %3d%% %.0f/s", "#".repeat(filled), ".".repeat(width - filled), done, total,
                    100 * done / total, done / seconds);
            drawn = true;
        }

        synchronized void finish() {
            if (drawn) {
                err.println();
            }
        }
    }

    /** The database to read: a URL, a running embedded server's, or the embedded one started for the run. */
    record Database(DataSource dataSource, EmbeddedDatabase started) implements AutoCloseable {

        static Database open(Map<String, String> options, Function<Path, EmbeddedDatabase> embedded) {
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setReadOnly(true);
            if (options.containsKey("jdbc-url")) {
                ds.setUrl(options.get("jdbc-url"));
                if (options.containsKey("jdbc-user")) {
                    ds.setUser(options.get("jdbc-user"));
                }
                if (options.containsKey("jdbc-password")) {
                    ds.setPassword(options.get("jdbc-password"));
                }
                return new Database(ds, null);
            }
            Path dir = Path.of(options.getOrDefault("data-dir", "./data"));
            if (!Files.isRegularFile(dir.resolve("PG_VERSION"))) {
                throw new IllegalStateException("no embedded database in " + dir.toAbsolutePath()
                        + " (run from the orchestrator's directory, or pass --data-dir or --jdbc-url)");
            }
            Integer port = runningPort(dir);
            if (port != null) { // the orchestrator is running on it: read through its server, never stop it
                ds.setUrl("jdbc:postgresql://localhost:" + port + "/postgres");
                ds.setUser("postgres");
                ds.setPassword(embeddedPassword(dir)); // it requires one (SCRAM)
                return new Database(ds, null);
            }
            EmbeddedDatabase server = embedded.apply(dir);
            ds.setUrl(server.jdbcUrl());
            return new Database(ds, server);
        }

        /**
         * The embedded server's password: in {@code <data-dir>.password}, beside the data directory, where the
         * orchestrator's EmbeddedPostgresServer keeps it (readable by its owner only).
         */
        static String embeddedPassword(Path dir) {
            Path absolute = dir.toAbsolutePath().normalize();
            Path file = absolute.resolveSibling(absolute.getFileName() + ".password");
            try {
                return Files.readString(file).strip();
            } catch (java.io.IOException e) {
                throw new IllegalStateException("cannot read the embedded database's password file " + file
                        + " (run as the user that runs the orchestrator)");
            }
        }

        /** The port of a live server on {@code dir} (postmaster.pid: pid, directory, start time, port, ...). */
        static Integer runningPort(Path dir) {
            try {
                Path pidFile = dir.resolve("postmaster.pid");
                if (!Files.exists(pidFile)) {
                    return null;
                }
                List<String> lines = Files.readAllLines(pidFile);
                long pid = Long.parseLong(lines.get(0).trim());
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && lines.size() > 3) {
                    return Integer.parseInt(lines.get(3).trim());
                }
                return null;
            } catch (Exception e) {
                return null;
            }
        }

        @Override
        public void close() {
            if (started != null) {
                started.close();
            }
        }
    }
}
