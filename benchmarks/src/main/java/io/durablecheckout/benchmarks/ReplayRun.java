package io.durablecheckout.benchmarks;

import io.durablecheckout.orchestrator.config.EventProcessingConfiguration;
import io.durablecheckout.orchestrator.config.AxonInfrastructureConfiguration;
import io.durablecheckout.orchestrator.readmodel.CheckoutSummaryRebuild;
import io.durablecheckout.orchestrator.serialization.EventUpcasters;
import io.durablecheckout.orchestrator.replay.ReplayCommand;
import io.durablecheckout.orchestrator.replay.StoredHistories;
import org.axonframework.eventhandling.EventTrackerStatus;
import org.axonframework.eventhandling.StreamingEventProcessor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.durablecheckout.benchmarks.Report.progress;
import static io.durablecheckout.benchmarks.Report.round;

/**
 * Read-model rebuild: fills the event store with completed checkouts, then rebuilds the {@code checkout-summary} read
 * model from the first event, the way an operator would: shut the processor down, reset its tokens (the projection's
 * reset handler empties its table), start it. Timed from start until every segment has passed the last event.
 * Then the operator's offline rebuild ({@link CheckoutSummaryRebuild}) on the same store, timed on its own, and
 * whether it left exactly the rows the processor wrote.
 */
final class ReplayRun {

    private static final Duration LIMIT = Duration.ofMinutes(10);

    private final BenchDatabase db;
    private final BenchOptions options;

    ReplayRun(BenchDatabase db, BenchOptions options) {
        this.db = db;
        this.options = options;
    }

    Map<String, Object> run() throws Exception {
        return options.replayCopies() > 0 ? runWithReads() : runReplay();
    }

    private Map<String, Object> runReplay() throws Exception {
        Report.Before before = Report.Before.take(options, "replay");
        db.reset();
        Map<String, Object> line = new LinkedHashMap<>();
        try (BenchApplication app = BenchApplication.start(db, BenchApplication.properties("tuned", options));
             CompletionWatcher watcher = new CompletionWatcher(app.eventStore())) {
            int checkouts = options.replayCheckouts();
            ClosedLoop.Result load = ClosedLoop.run(new Workload(options.seed(), "replay"), checkouts, 64,
                    Submitter.inProcess(app.checkoutService()), watcher);
            progress("replay: %d checkouts in the store (%.0f/s)", load.completed(), load.perSecond());
            awaitRows(load.completed());

            long events = db.events();
            long head = db.queryLong("SELECT max(globalindex) FROM domainevententry");
            StreamingEventProcessor processor = app.bean(org.axonframework.config.EventProcessingConfiguration.class)
                    .eventProcessor(EventProcessingConfiguration.SUMMARY_PROCESSOR, StreamingEventProcessor.class)
                    .orElseThrow(() -> new IllegalStateException("no streaming processor "
                            + EventProcessingConfiguration.SUMMARY_PROCESSOR));
            processor.shutDown();
            processor.resetTokens();
            long start = System.nanoTime();
            processor.start();
            long nextReport = start;
            while (!passed(processor, head)) {
                if (System.nanoTime() - start > LIMIT.toNanos()) {
                    throw new IllegalStateException("read model not rebuilt within " + LIMIT + ": "
                            + processor.processingStatus());
                }
                if (System.nanoTime() > nextReport) {
                    progress("replay: %s (head %d)", processor.processingStatus().values().stream()
                            .map(s -> "segment " + s.getSegment().getSegmentId() + " at "
                                    + s.getCurrentPosition().orElse(-1) + (s.isReplaying() ? " replaying" : ""))
                            .toList(), head);
                    nextReport = System.nanoTime() + 5_000_000_000L;
                }
                Thread.sleep(5);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long rows = db.queryLong("SELECT count(*) FROM checkout_summary WHERE state = 'completed'");
            String processorDigest = digest();

            // the operator's offline rebuild, same store; must end with the same rows
            long offlineStart = System.nanoTime();
            CheckoutSummaryRebuild.Result offline = app.bean(CheckoutSummaryRebuild.class).rebuild();
            double offlineSeconds = (System.nanoTime() - offlineStart) / 1e9;
            progress("replay: offline rebuild %d events, %d rows in %.2f s", offline.events(), offline.rows(),
                    offlineSeconds);

            line.put("run", "replay");
            before.put(line);
            line.put("processor", EventProcessingConfiguration.SUMMARY_PROCESSOR);
            line.put("checkouts", load.completed());
            line.put("events", events);
            line.put("rebuilt_rows", rows);
            line.put("seconds", round(seconds, 2));
            line.put("events_per_s", round(events / seconds, 0));
            line.put("checkouts_per_s", round(rows / seconds, 0));
            line.put("offline_rebuild_events", offline.events());
            line.put("offline_rebuild_rows", offline.rows());
            line.put("offline_rebuild_seconds", round(offlineSeconds, 2));
            line.put("offline_rebuild_events_per_s", round(events / offlineSeconds, 0));
            line.put("offline_rows_equal_processor_rows", processorDigest.equals(digest()));
            line.put("load_avg_1m", round(Resources.loadAverage1m(), 2));
        }
        // the decision replay of the same store, with the application stopped (as the command line runs it)
        StoredHistories histories = storedHistories(db);
        int threads = Runtime.getRuntime().availableProcessors();
        // two passes: the first includes the JIT compiling the replay code, the second is the steady state
        for (String pass : List.of("cold", "warm")) {
            ReplayCommand.Summary decisions = ReplayCommand.replayAll(histories, null, threads,
                    histories.count(null), null);
            progress("replay: decisions of %d histories replayed (%s) in %.2f s (%.0f/s, %.0f per CPU-second), "
                            + "%d diverged, %d not replayable", decisions.histories(), pass, decisions.seconds(),
                    decisions.historiesPerSecond(), decisions.historiesPerCpuSecond(), decisions.diverged(),
                    decisions.notReplayable());
            String key = "decision_replay_" + pass + "_";
            line.put(key + "histories", decisions.histories());
            line.put(key + "events", decisions.events());
            line.put(key + "threads", threads);
            line.put(key + "seconds", round(decisions.seconds(), 2));
            line.put(key + "histories_per_s", round(decisions.historiesPerSecond(), 0));
            line.put(key + "histories_per_cpu_s", round(decisions.historiesPerCpuSecond(), 0));
            line.put(key + "identical", decisions.identical());
            line.put(key + "diverged", decisions.diverged());
            line.put(key + "not_replayable", decisions.notReplayable());
        }
        line.put("decision_replay_load_avg_1m", round(Resources.loadAverage1m(), 2));
        commandLine(line);
        return line;
    }

    /**
     * {@code replay --all} as a user runs it: the application jar in a fresh JVM, once with the JVM's defaults and
     * once as docs/replay.md starts a bulk replay (C1 only, the build's class-data sharing archive). Its own summary
     * line is the figure: from the first history read to the last replayed, without the JVM's start.
     */
    private void commandLine(Map<String, Object> line) throws Exception {
        java.nio.file.Path jar = AppProcesses.jar(options);
        java.nio.file.Path archive = AppProcesses.archiveOf(jar);
        Map<String, List<String>> runs = new LinkedHashMap<>();
        runs.put("defaults", List.of());
        runs.put("documented", archive == null ? List.of("-XX:TieredStopAtLevel=1")
                : List.of("-XX:TieredStopAtLevel=1", "-XX:SharedArchiveFile=" + archive));
        for (Map.Entry<String, List<String>> run : runs.entrySet()) {
            List<String> command = new ArrayList<>();
            command.add(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx512m");
            command.add("-XX:+UseSerialGC");
            command.addAll(run.getValue());
            command.addAll(List.of("-jar", jar.toString(), "replay", "--all", "--jdbc-url", db.url(),
                    "--jdbc-user", db.user(), "--jdbc-password", db.password()));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            int exit = process.waitFor();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("summary: (\\d+) histories, \\d+ events in "
                    + "([\\d.]+) s \\((\\d+) histories/s; (\\d+) per CPU-second\\): (\\d+) identical, (\\d+) diverged")
                    .matcher(output);
            String key = "decision_replay_cli_" + run.getKey() + "_";
            line.put(key + "jvm_options", run.getValue());
            line.put(key + "exit_code", exit);
            if (!m.find()) {
                progress("replay: the command line (%s) printed no summary (exit %d): %s", run.getKey(), exit,
                        output.length() > 2_000 ? output.substring(output.length() - 2_000) : output);
                continue;
            }
            line.put(key + "histories", Long.parseLong(m.group(1)));
            line.put(key + "seconds", Double.parseDouble(m.group(2)));
            line.put(key + "histories_per_s", Long.parseLong(m.group(3)));
            line.put(key + "histories_per_cpu_s", Long.parseLong(m.group(4)));
            line.put(key + "identical", Long.parseLong(m.group(5)));
            line.put(key + "diverged", Long.parseLong(m.group(6)));
            progress("replay: the command line (%s %s): %s histories in %s s (%s/s), %s diverged, exit %d",
                    run.getKey(), run.getValue(), m.group(1), m.group(2), m.group(3), m.group(6), exit);
        }
    }

    /**
     * Reads during a rebuild of a large read model: {@code replay-checkouts} real checkouts run through the workflow,
     * then their events are copied {@code replay-copies} times under new checkout ids by SQL (no workflow runs for
     * the copies: every processor's token is moved past them), and the operator's offline rebuild runs while one
     * client reads random checkouts over HTTP, back to back. Reported: the rebuild's time and the read latencies
     * measured while it ran.
     */
    private Map<String, Object> runWithReads() throws Exception {
        Report.Before before = Report.Before.take(options, "rebuild-reads");
        db.reset();
        List<String> properties = BenchApplication.properties("tuned", options);
        int real;
        try (BenchApplication app = BenchApplication.start(db, properties);
             CompletionWatcher watcher = new CompletionWatcher(app.eventStore())) {
            ClosedLoop.Result load = ClosedLoop.run(new Workload(options.seed(), "replay"), options.replayCheckouts(),
                    64, Submitter.inProcess(app.checkoutService()), watcher);
            real = load.completed();
            progress("rebuild-reads: %d checkouts through the workflow (%.0f/s)", real, load.perSecond());
            awaitRows(real);
        }
        // the application is down: copy the store, then move every processor past the copies
        long copyStart = System.nanoTime();
        try (java.sql.Connection c = db.connect(); java.sql.Statement s = c.createStatement()) {
            for (int k = 1; k <= options.replayCopies(); k++) {
                s.execute("""
                        INSERT INTO domainevententry (aggregateidentifier, sequencenumber, type, eventidentifier,
                                                      metadata, payload, payloadrevision, payloadtype, timestamp)
                        SELECT aggregateidentifier || '~%1$d', sequencenumber, type, eventidentifier || '~%1$d',
                               convert_to(replace(convert_from(metadata, 'UTF8'), aggregateidentifier,
                                                  aggregateidentifier || '~%1$d'), 'UTF8'),
                               convert_to(replace(convert_from(payload, 'UTF8'), aggregateidentifier,
                                                  aggregateidentifier || '~%1$d'), 'UTF8'),
                               payloadrevision, payloadtype, timestamp
                        FROM domainevententry WHERE aggregateidentifier NOT LIKE '%%~%%' ORDER BY globalindex
                        """.formatted(k));
                progress("rebuild-reads: copy %d of %d", k, options.replayCopies());
            }
            long head = db.queryLong("SELECT max(globalindex) FROM domainevententry");
            s.execute("UPDATE tokenentry SET token = convert_to('{\"index\":" + head + ",\"gaps\":[]}', 'UTF8'),"
                    + " tokentype = 'org.axonframework.eventhandling.GapAwareTrackingToken', owner = NULL");
            s.execute("ANALYZE domainevententry");
        }
        double copySeconds = (System.nanoTime() - copyStart) / 1e9;
        long events = db.events();
        long checkouts = db.queryLong("SELECT count(DISTINCT aggregateidentifier) FROM domainevententry"
                + " WHERE type = 'Checkout'");
        progress("rebuild-reads: %d checkouts, %d events in the store (copies took %.1f s)", checkouts, events,
                copySeconds);

        Map<String, Object> line = new LinkedHashMap<>();
        try (BenchApplication app = BenchApplication.start(db, properties)) {
            List<String> ids = new ArrayList<>();
            try (java.sql.Connection c = db.connect(); java.sql.Statement s = c.createStatement();
                 java.sql.ResultSet rs = s.executeQuery("SELECT checkout_id FROM checkout_summary")) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            java.util.concurrent.atomic.AtomicBoolean rebuilding = new java.util.concurrent.atomic.AtomicBoolean(true);
            List<Long> during = java.util.Collections.synchronizedList(new ArrayList<>());
            int[] failed = {0};
            java.util.Random random = new java.util.Random(options.seed());
            Thread reader = new Thread(() -> {
                while (rebuilding.get()) {
                    String id = ids.get(random.nextInt(ids.size()));
                    long t0 = System.nanoTime();
                    try {
                        java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder(
                                        java.net.URI.create("http://localhost:" + app.port() + "/api/v1/checkouts/" + id))
                                .header("Authorization", "Bearer " + BenchApplication.TENANT_KEY).timeout(Duration.ofSeconds(30))
                                .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() != 200) {
                            failed[0]++;
                        }
                    } catch (Exception e) {
                        failed[0]++;
                    }
                    if (rebuilding.get()) {
                        during.add(System.nanoTime() - t0);
                    }
                }
            }, "rebuild-reader");
            // warm the read path first, so the figures are of the rebuild, not of a cold JIT
            for (int i = 0; i < 2_000; i++) {
                http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://localhost:" + app.port()
                                + "/api/v1/checkouts/" + ids.get(i % ids.size())))
                        .header("Authorization", "Bearer " + BenchApplication.TENANT_KEY).build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding());
            }
            reader.start();
            long start = System.nanoTime();
            CheckoutSummaryRebuild.Result offline = app.bean(CheckoutSummaryRebuild.class).rebuild();
            double seconds = (System.nanoTime() - start) / 1e9;
            rebuilding.set(false);
            reader.join();
            long[] nanos = during.stream().mapToLong(Long::longValue).sorted().toArray();
            progress("rebuild-reads: rebuilt %d rows from %d events in %.2f s; %d reads during it, max %.1f ms",
                    offline.rows(), offline.events(), seconds, nanos.length,
                    nanos.length == 0 ? 0 : nanos[nanos.length - 1] / 1e6);
            line.put("run", "rebuild-reads");
            before.put(line);
            line.put("checkouts_through_workflow", real);
            line.put("copies", options.replayCopies());
            line.put("checkouts", checkouts);
            line.put("events", events);
            line.put("rebuild_rows", offline.rows());
            line.put("rebuild_events", offline.events());
            line.put("rebuild_seconds", round(seconds, 2));
            line.put("rebuild_events_per_s", round(events / seconds, 0));
            line.put("reads_during_rebuild", nanos.length);
            line.put("read_failures", failed[0]);
            line.put("read_p50_ms", round(percentile(nanos, 50), 2));
            line.put("read_p99_ms", round(percentile(nanos, 99), 2));
            line.put("read_max_ms", round(nanos.length == 0 ? Double.NaN : nanos[nanos.length - 1] / 1e6, 2));
            line.put("reads_over_100ms", java.util.Arrays.stream(nanos).filter(n -> n > 100_000_000L).count());
            line.put("load_avg_1m", round(Resources.loadAverage1m(), 2));
        }
        return line;
    }

    /** The stored histories as {@code replay} reads them, over a connection of their own (no application needed). */
    static StoredHistories storedHistories(BenchDatabase db) {
        org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
        ds.setUrl(db.url());
        ds.setUser(db.user());
        ds.setPassword(db.password());
        return new StoredHistories(ds, AxonInfrastructureConfiguration.strictEventSerializer(), EventUpcasters.chain());
    }

    private static double percentile(long[] sortedNanos, double p) {
        if (sortedNanos.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100.0 * sortedNanos.length);
        return sortedNanos[Math.max(0, Math.min(sortedNanos.length - 1, rank - 1))] / 1e6;
    }

    private String digest() throws Exception {
        try (java.sql.Connection c = db.connect(); java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery("""
                     SELECT md5(coalesce(string_agg(concat_ws('|', checkout_id, tenant_id, state, version, terminal,
                         waiting_reason, next_deadline, view::text, created_at, updated_at), ',' ORDER BY checkout_id), ''))
                     FROM checkout_summary""")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * Every segment of the processor has handled the event at {@code head}. (Its token stays a replay token until an
     * event beyond the reset point arrives, so "no longer replaying" is not the signal.)
     */
    private static boolean passed(StreamingEventProcessor processor, long head) {
        Map<Integer, EventTrackerStatus> status = processor.processingStatus();
        return !status.isEmpty() && status.values().stream().allMatch(s -> s.getCurrentPosition().orElse(-1) >= head);
    }

    private void awaitRows(int expected) throws Exception {
        long start = System.nanoTime();
        while (db.queryLong("SELECT count(*) FROM checkout_summary WHERE state = 'completed'") < expected) {
            if (System.nanoTime() - start > LIMIT.toNanos()) {
                throw new IllegalStateException("read model did not catch up");
            }
            Thread.sleep(100);
        }
    }
}
