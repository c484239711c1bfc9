package io.durablecheckout.orchestrator.bench;

import io.durablecheckout.orchestrator.config.EventProcessingConfiguration;
import io.durablecheckout.orchestrator.config.AxonInfrastructureConfiguration;
import io.durablecheckout.orchestrator.readmodel.CheckoutSummaryRebuild;
import io.durablecheckout.orchestrator.replay.EventUpcasters;
import io.durablecheckout.orchestrator.replay.ReplayCommand;
import io.durablecheckout.orchestrator.replay.StoredHistories;
import org.axonframework.eventhandling.EventTrackerStatus;
import org.axonframework.eventhandling.StreamingEventProcessor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.durablecheckout.orchestrator.bench.CheckoutBenchmark.progress;
import static io.durablecheckout.orchestrator.bench.CheckoutBenchmark.round;

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
        double busyBefore = CheckoutBenchmark.awaitQuietMachine(options, "replay");
        progress("replay: start (load average %.2f)", Resources.loadAverage1m());
        db.reset();
        List<String> properties = new ArrayList<>(List.of("checkout.processing.mode=tuned",
                "checkout.processing.node-id=bench"));
        properties.addAll(options.appProperties());
        Map<String, Object> line = new LinkedHashMap<>();
        try (BenchApplication app = BenchApplication.start(db, properties);
             CompletionWatcher watcher = new CompletionWatcher(app.eventStore())) {
            int checkouts = options.replayCheckouts();
            ClosedLoop.Result load = ClosedLoop.run(new Workload(options.seed(), "replay"), checkouts, 64,
                    Submitter.inProcess(app.checkoutService()), watcher);
            progress("replay: %d checkouts in the store (%.0f/s)", load.completed(), load.perSecond());
            awaitRows(load.completed());

            long events = db.queryLong("SELECT count(*) FROM domainevententry");
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
            line.put("host_cpu_busy_pct_before", round(busyBefore, 1));
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
        org.postgresql.ds.PGSimpleDataSource ds = new org.postgresql.ds.PGSimpleDataSource();
        ds.setUrl(db.url());
        ds.setUser(db.user());
        ds.setPassword(db.password());
        StoredHistories histories = new StoredHistories(ds, AxonInfrastructureConfiguration.strictEventSerializer(),
                EventUpcasters.chain());
        int threads = Runtime.getRuntime().availableProcessors();
        ReplayCommand.Summary decisions = ReplayCommand.replayAll(histories, null, threads, histories.count(null),
                null);
        progress("replay: decisions of %d histories replayed in %.2f s (%.0f/s), %d diverged, %d not replayable",
                decisions.histories(), decisions.seconds(), decisions.historiesPerSecond(), decisions.diverged(),
                decisions.notReplayable());
        line.put("decision_replay_histories", decisions.histories());
        line.put("decision_replay_events", decisions.events());
        line.put("decision_replay_threads", threads);
        line.put("decision_replay_seconds", round(decisions.seconds(), 2));
        line.put("decision_replay_histories_per_s", round(decisions.historiesPerSecond(), 0));
        line.put("decision_replay_identical", decisions.identical());
        line.put("decision_replay_diverged", decisions.diverged());
        line.put("decision_replay_not_replayable", decisions.notReplayable());
        return line;
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
