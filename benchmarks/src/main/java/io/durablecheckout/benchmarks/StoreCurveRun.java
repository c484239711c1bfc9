package io.durablecheckout.benchmarks;

import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.orchestrator.readmodel.CheckoutSummaryRebuild;
import io.durablecheckout.orchestrator.replay.ReplayCommand;
import io.durablecheckout.orchestrator.replay.StoredHistories;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.durablecheckout.benchmarks.Report.progress;
import static io.durablecheckout.benchmarks.Report.round;

/**
 * What a growing store costs (issue 51, Build 5). The store grows by SQL copies of the finished checkouts the
 * workflow ran (events only, under new ids, each copy dated a few hours further back, so the store spans about 90 days
 * at its largest), the application down and every processor's token moved past them, as an upgrade from an old store
 * would find them. At each size, one after another on the same database: table and index sizes; the operator's
 * offline read-model rebuild (which also writes the copies' summary rows the dashboard reads); C = 32 over HTTP with
 * the work units and WAL per checkout; the dashboard's list and filters; {@code replay --all}; and recovery of
 * {@code --recovery-checkouts} in flight after kill -9 (the packaged jar, as {@link RecoveryRun}).
 */
final class StoreCurveRun {

    /** The largest store spans about this many days, so the dashboard's date filters select a realistic share. */
    private static final double SPAN_DAYS_AT_12M = 90;
    private static final int DASHBOARD_RUNS = 30;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Copies per INSERT: about half a million events per statement, one transaction each. */
    private static final long EVENTS_PER_STATEMENT = 500_000;

    private final BenchDatabase db;
    private final BenchOptions options;
    private SimulatorProcess simulator;
    private long nextCopy = 1;
    private long templateEvents;
    private double shiftSeconds;

    StoreCurveRun(BenchDatabase db, BenchOptions options) {
        this.db = db;
        this.options = options;
    }

    List<Map<String, Object>> run() throws Exception {
        List<Map<String, Object>> lines = new ArrayList<>();
        boolean keep = options.storeCurveKeep();
        if (!keep) {
            db.reset();
        }
        if (options.simulatorProcess()) {
            simulator = SimulatorProcess.start(db, options);
        }
        try {
            warmUp();
            if (!keep) {
                db.reset();
                try (BenchApplication app = BenchApplication.start(db, properties())) {
                    progress("store-curve: schema migrated on a fresh database (port %d)", app.port());
                }
            }
            for (double millions : options.storeCurve()) {
                long target = Math.round(millions * 1_000_000);
                double fillSeconds = grow(target);
                Map<String, Object> line = measure(millions, fillSeconds);
                lines.add(line);
                summary(lines);
            }
        } finally {
            if (simulator != null) {
                simulator.close();
            }
        }
        return lines;
    }

    private List<String> properties() {
        List<String> extra = simulator == null ? List.of() : simulator.applicationProperties();
        return BenchApplication.properties("tuned", options, extra.toArray(String[]::new));
    }

    /** The JIT compiles the application before the first size, or the empty store would pay for it. */
    private void warmUp() throws Exception {
        for (int round = 1; round <= 2 && options.jvmWarmup() > 0; round++) {
            try (BenchApplication app = BenchApplication.start(db, properties());
                 CompletionWatcher watcher = new CompletionWatcher(app.eventStore())) {
                ClosedLoop.Result r = ClosedLoop.run(new Workload(options.seed() + 2, "jvm-warmup-" + round + "-"
                                + System.currentTimeMillis()),
                        options.jvmWarmup(), 32, Submitter.http(app.port()), watcher);
                progress("store-curve: JVM warm-up round %d: %d checkouts (not counted)", round, r.completed());
            }
        }
    }

    /**
     * Copies the workflow's finished checkouts (the template: every checkout with a completion that is not itself a
     * copy) until the store holds {@code target} events. The application is down while it runs.
     *
     * @return the seconds the copies took
     */
    private double grow(long target) throws Exception {
        long events = db.events();
        if (events >= target) {
            return 0;
        }
        long start = System.nanoTime();
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS curve_template");
            s.execute("""
                    CREATE UNLOGGED TABLE curve_template AS
                    SELECT e.* FROM domainevententry e
                    WHERE e.type = 'Checkout' AND e.aggregateidentifier NOT LIKE '%~%'
                      AND e.aggregateidentifier IN (SELECT aggregateidentifier FROM domainevententry
                                                    WHERE payloadtype = '""" + CheckoutCompletedEvent.class.getName() + "')");
            templateEvents = db.queryLong("SELECT count(*) FROM curve_template");
            if (templateEvents == 0) {
                throw new IllegalStateException("no finished checkout to copy: the first size must run the workflow");
            }
            if (shiftSeconds == 0) {
                // each copy a few hours older than the one before: about SPAN_DAYS_AT_12M days at 12 million events
                shiftSeconds = SPAN_DAYS_AT_12M * 86_400 * templateEvents / 12_000_000.0;
            }
            long copies = (target - events + templateEvents - 1) / templateEvents;
            long perStatement = Math.max(1, EVENTS_PER_STATEMENT / templateEvents);
            progress("store-curve: %d events, copying %d checkout events %d times to reach %d", events,
                    templateEvents, copies, target);
            try (PreparedStatement insert = c.prepareStatement("""
                    INSERT INTO domainevententry (aggregateidentifier, sequencenumber, type, eventidentifier,
                                                  metadata, payload, payloadrevision, payloadtype, timestamp)
                    SELECT t.aggregateidentifier || '~' || k, t.sequencenumber, t.type, t.eventidentifier || '~' || k,
                           convert_to(replace(convert_from(t.metadata, 'UTF8'), t.aggregateidentifier,
                                              t.aggregateidentifier || '~' || k), 'UTF8'),
                           convert_to(replace(convert_from(t.payload, 'UTF8'), t.aggregateidentifier,
                                              t.aggregateidentifier || '~' || k), 'UTF8'),
                           t.payloadrevision, t.payloadtype,
                           to_char((t.timestamp::timestamptz - make_interval(secs => k * ?)) AT TIME ZONE 'UTC',
                                   'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
                    FROM generate_series(?::bigint, ?::bigint) AS k CROSS JOIN curve_template t
                    ORDER BY k, t.globalindex
                    """)) {
                for (long done = 0; done < copies; ) {
                    long batch = Math.min(perStatement, copies - done);
                    insert.setDouble(1, shiftSeconds);
                    insert.setLong(2, nextCopy);
                    insert.setLong(3, nextCopy + batch - 1);
                    insert.executeUpdate();
                    nextCopy += batch;
                    done += batch;
                    progress("store-curve: %d of %d copies (%.0f s)", done, copies, (System.nanoTime() - start) / 1e9);
                }
            }
            s.execute("DROP TABLE curve_template");
            long head = db.queryLong("SELECT max(globalindex) FROM domainevententry");
            // the processors start past the copies, as they would be past an old store's history
            s.execute("UPDATE tokenentry SET token = convert_to('{\"index\":" + head + ",\"gaps\":[]}', 'UTF8'),"
                    + " tokentype = 'org.axonframework.eventhandling.GapAwareTrackingToken', owner = NULL");
            s.execute("VACUUM ANALYZE domainevententry");
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private Map<String, Object> measure(double millions, double fillSeconds) throws Exception {
        String label = "store-curve/" + millions + "M";
        Report.Before before = Report.Before.take(options, label);
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("run", "store-curve");
        line.put("target_million_events", millions);
        before.put(line);
        line.put("fill_s", round(fillSeconds, 1));
        line.put("events", db.events());
        line.put("checkouts", db.queryLong("SELECT count(*) FROM domainevententry WHERE type = 'Checkout'"
                + " AND sequencenumber = 0"));
        sizes(line);
        // fresh checkout ids and keys each run: the simulator's ledger outlives a reset and would answer repeats
        String run = millions + "-" + System.currentTimeMillis();
        try (BenchApplication app = BenchApplication.start(db, properties());
             CompletionWatcher watcher = new CompletionWatcher(app.eventStore())) {
            if (!options.storeCurveKeep()) {
                rebuild(app, line, label);
            }
            Submitter submitter = Submitter.http(app.port());
            ClosedLoop.run(new Workload(options.seed() + 1, "warmup-" + run), options.warmup(), 32, submitter,
                    watcher);
            WorkUnits work = WorkUnits.start(db, app, simulator, true);
            long eventsBefore = head(); // not count(*): a scan of the grown store just before the counted run
            long walBefore = db.queryLong("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn");
            ClosedLoop.Result result = ClosedLoop.run(new Workload(options.seed(), "run-" + run), options.n(), 32,
                    submitter, watcher);
            Map<String, Object> units = new LinkedHashMap<>();
            CpuWindow.Split split = work.stop(units, result.completed(), label, options.statementsDir());
            long wal = db.queryLong("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn") - walBefore;
            Report.putClosedLoop(line, result, options, null, head() - eventsBefore);
            line.put("wal_bytes_per_checkout", result.completed() == 0 ? null : wal / result.completed());
            split.put(line, "jvm", result.completed());
            line.putAll(units);
            Report.summary(label, line, "jvm");

            if (!options.storeCurveKeep()) {
                dashboard(app, line);
                replay(line);
            }
        }
        Map<String, Object> recovery = new RecoveryRun(db, options).run(false, "recovery-" + run);
        for (String key : List.of("in_flight_at_kill", "restart_to_ready_s", "restart_to_all_done_s",
                "duplicate_reservations", "duplicate_authorizations", "duplicate_receipts")) {
            line.put("recovery_" + key, recovery.get(key));
        }
        progress("%s: recovery of %s in flight: ready after %s s, all done after %s s", label,
                recovery.get("in_flight_at_kill"), recovery.get("restart_to_ready_s"),
                recovery.get("restart_to_all_done_s"));
        return line;
    }

    private long head() throws Exception {
        return db.queryLong("SELECT coalesce(max(globalindex), 0) FROM domainevententry");
    }

    /** The operator's offline rebuild of the read model: also what writes the copies' summary rows. */
    private static void rebuild(BenchApplication app, Map<String, Object> line, String label) {
        long rebuildStart = System.nanoTime();
        CheckoutSummaryRebuild.Result rebuilt = app.bean(CheckoutSummaryRebuild.class).rebuild();
        double rebuildSeconds = (System.nanoTime() - rebuildStart) / 1e9;
        line.put("rebuild_s", round(rebuildSeconds, 1));
        line.put("rebuild_rows", rebuilt.rows());
        line.put("rebuild_events_per_s", round(rebuilt.events() / rebuildSeconds, 0));
        progress("%s: offline rebuild of %d events, %d rows in %.1f s", label, rebuilt.events(), rebuilt.rows(),
                rebuildSeconds);
    }

    private void sizes(Map<String, Object> line) throws Exception {
        double[] mb = db.queryDoubles("""
                SELECT pg_relation_size('domainevententry') / 1048576.0,
                       pg_indexes_size('domainevententry') / 1048576.0,
                       pg_total_relation_size('checkout_summary') / 1048576.0,
                       pg_database_size(current_database()) / 1048576.0""");
        line.put("event_table_mb", round(mb[0], 0));
        line.put("event_indexes_mb", round(mb[1], 0));
        line.put("summary_table_with_indexes_mb", round(mb[2], 0));
        line.put("database_mb", round(mb[3], 0));
    }

    /** The dashboard's list, filters and searches (the server's own tookMicros), as an operator signed in uses it. */
    private void dashboard(BenchApplication app, Map<String, Object> line) throws Exception {
        java.net.http.HttpClient operator = signIn(app.port());
        String base = "http://localhost:" + app.port();
        long rows = db.queryLong("SELECT count(*) FROM checkout_summary");
        String oldId;
        String deep;
        try (Connection c = db.connect(); Statement s = c.createStatement();
             java.sql.ResultSet r = s.executeQuery("SELECT checkout_id, created_at FROM checkout_summary"
                     + " ORDER BY created_at DESC, checkout_id DESC OFFSET " + rows * 9 / 10 + " LIMIT 1")) {
            r.next();
            oldId = r.getString(1);
            deep = Base64.getUrlEncoder().withoutPadding().encodeToString((r.getTimestamp(2).toInstant() + "|~")
                    .getBytes(StandardCharsets.UTF_8));
        }
        Instant now = Instant.now();
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("first page", "/dashboard/api/checkouts");
        cases.put("page at 90% depth", "/dashboard/api/checkouts?cursor=" + deep);
        cases.put("state completed", "/dashboard/api/checkouts?state=completed");
        cases.put("state manual_review", "/dashboard/api/checkouts?state=manual_review");
        cases.put("stuck", "/dashboard/api/checkouts?stuck=true");
        cases.put("payment unknown", "/dashboard/api/checkouts?paymentUnknown=true");
        cases.put("one day, 30 days ago", "/dashboard/api/checkouts?from=" + now.minusSeconds(86_400 * 31)
                + "&to=" + now.minusSeconds(86_400 * 30));
        cases.put("search: an old checkout id", "/dashboard/api/checkouts?q=" + oldId.replace("~", "%7E"));
        cases.put("counts", "/dashboard/api/counts");
        cases.put("money at risk", "/dashboard/api/money-at-risk");
        double worst = 0;
        String worstCase = null;
        Map<String, Object> perCase = new LinkedHashMap<>();
        for (Map.Entry<String, String> c : cases.entrySet()) {
            long[] server = new long[DASHBOARD_RUNS];
            long[] http = new long[DASHBOARD_RUNS];
            for (int i = 0; i < DASHBOARD_RUNS + 5; i++) {
                long t0 = System.nanoTime();
                java.net.http.HttpResponse<String> r = operator.send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(base + c.getValue())).GET().build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                long micros = (System.nanoTime() - t0) / 1000;
                if (r.statusCode() != 200) {
                    throw new IllegalStateException(c.getKey() + ": " + r.statusCode() + " " + r.body());
                }
                if (i >= 5) {
                    JsonNode took = JSON.readTree(r.body()).path("tookMicros");
                    server[i - 5] = took.isMissingNode() ? micros : took.asLong();
                    http[i - 5] = micros;
                }
            }
            Arrays.sort(server);
            Arrays.sort(http);
            double serverP95 = server[DASHBOARD_RUNS * 95 / 100] / 1000.0;
            double httpP95 = http[DASHBOARD_RUNS * 95 / 100] / 1000.0;
            perCase.put(c.getKey(), Map.of("server_p95_ms", round(serverP95, 1), "http_p95_ms", round(httpP95, 1)));
            if (httpP95 > worst) {
                worst = httpP95;
                worstCase = c.getKey();
            }
        }
        line.put("dashboard_worst_http_p95_ms", round(worst, 1));
        line.put("dashboard_worst_case", worstCase);
        line.put("dashboard", perCase);
        progress("store-curve: dashboard worst p95 %.1f ms (%s) over %d rows", worst, worstCase, rows);
    }

    /** The login form as a browser sends it; the session cookie rides on the returned client. */
    private static java.net.http.HttpClient signIn(int port) throws Exception {
        java.net.http.HttpClient client = java.net.http.HttpClient.newBuilder()
                .cookieHandler(new java.net.CookieManager())
                .followRedirects(java.net.http.HttpClient.Redirect.NEVER).build();
        String base = "http://localhost:" + port;
        String page = client.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "/login")).GET()
                .build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(page);
        if (!m.find()) {
            throw new IllegalStateException("no CSRF token on the login page");
        }
        String form = "username=operator&password="
                + java.net.URLEncoder.encode(BenchApplication.OPERATOR_KEY, StandardCharsets.UTF_8)
                + "&_csrf=" + java.net.URLEncoder.encode(m.group(1), StandardCharsets.UTF_8);
        String location = client.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "/login"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(form)).build(),
                java.net.http.HttpResponse.BodyHandlers.discarding()).headers().firstValue("Location").orElse("");
        if (location.contains("error")) {
            throw new IllegalStateException("dashboard sign-in refused: " + location);
        }
        return client;
    }

    /** {@code replay --all} in this JVM, both cores, as the command line runs it against the store. */
    private void replay(Map<String, Object> line) {
        StoredHistories histories = ReplayRun.storedHistories(db);
        int threads = Runtime.getRuntime().availableProcessors();
        ReplayCommand.Summary s = ReplayCommand.replayAll(histories, null, threads, histories.count(null), null);
        line.put("replay_histories", s.histories());
        line.put("replay_s", round(s.seconds(), 1));
        line.put("replay_us_per_history", round(s.seconds() * 1e6 / Math.max(1, s.histories()), 0));
        line.put("replay_diverged", s.diverged());
        line.put("replay_not_replayable", s.notReplayable());
        progress("store-curve: replay --all of %d histories in %.1f s (%.0f µs each), %d diverged", s.histories(),
                s.seconds(), s.seconds() * 1e6 / Math.max(1, s.histories()), s.diverged());
    }

    private static void summary(List<Map<String, Object>> lines) {
        progress("store-curve: million events | events | checkouts/s | p99 ms | statements | buffers | statement ms"
                + " | WAL B | rebuild s | dashboard p95 ms | replay µs/history | recovery s | event table+indexes MB");
        for (Map<String, Object> l : lines) {
            progress("store-curve: %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s+%s",
                    l.get("target_million_events"), l.get("events"), l.get("checkouts_per_s"), l.get("p99_ms"),
                    l.get("statements_per_checkout"), l.get("buffer_accesses_per_checkout"),
                    l.get("statement_exec_ms_per_checkout"),
                    l.get("wal_bytes_per_checkout"), l.get("rebuild_s"), l.get("dashboard_worst_http_p95_ms"),
                    l.get("replay_us_per_history"), l.get("recovery_restart_to_all_done_s"), l.get("event_table_mb"),
                    l.get("event_indexes_mb"));
        }
    }
}
