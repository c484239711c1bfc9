package io.durablecheckout.orchestrator.it.support;

import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;
import io.durablecheckout.orchestrator.faults.CrashPoint;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;


/**
 * The crash, pause and duplicate-delivery matrix: the real application as separate OS processes on one PostgreSQL,
 * a mixed workload that exercises every payment simulator behaviour (and cancellations, so compensations run), one
 * injected fault per run, then a second node finishes the work and the run is judged on what is durably recorded:
 * every checkout accounted for (none lost), no side effect done twice, nothing stuck without saying why.
 */
public final class FaultMatrix {

    /**
     * Awaitility, without its default of failing the wait when any thread of the JVM dies: a run is judged on what is
     * durably recorded, and a kill -9 resets connections under the test's own servers (GreenMail's handler thread
     * ends with "Connection reset" when a node dies mid-message), which is the fault, not a verdict.
     */
    static org.awaitility.core.ConditionFactory await() {
        return org.awaitility.Awaitility.await().dontCatchUncaughtExceptions();
    }

    /** Every node of a run: short back-offs so a run settles in seconds; webhooks twice and late, always. */
    public static final List<String> NODE_ARGS = List.of(
            "--checkout.workflow.reconciliation-initial-delay=500ms",
            "--checkout.workflow.reconciliation-max-lookups=3",
            "--checkout.workflow.retry-initial-delay=300ms",
            "--checkout.simulator.timeout-delay=3s",
            "--checkout.simulator.slow-delay=800ms",
            "--checkout.payments.request-timeout=1500ms",
            "--checkout.simulator.webhooks.enabled=true",
            "--checkout.simulator.webhooks.duplicate=true",
            "--checkout.simulator.webhooks.delay=2s",
            "--checkout.processing.claim-timeout=3s",
            "--checkout.processing.token-claim-interval=500ms",
            "--checkout.demo.sku-count=50",
            "--db-scheduler.heartbeat-interval=1s",
            "--db-scheduler.missed-heartbeats-limit=4");

    /** One checkout of the workload: its payment token, and whether the customer cancels it once completed. */
    public record Order(String token, boolean cancelWhenCompleted) {
    }

    public static final List<Order> WORKLOAD = List.of(
            new Order("tok_approve", false), new Order("tok_approve", false), new Order("tok_approve", false),
            new Order("tok_approve", false), new Order("tok_approve", true), new Order("tok_approve", true),
            new Order("tok_decline", false), new Order("tok_decline", false),
            new Order("tok_timeout_then_approve", false), new Order("tok_timeout_then_approve", false),
            new Order("tok_timeout_then_decline", false), new Order("tok_timeout_then_decline", false),
            new Order("tok_unknown", false),
            new Order("tok_slow", false), new Order("tok_slow", false), new Order("tok_slow", false),
            new Order("tok_provider_down", false), new Order("tok_provider_down", false));

    /** The one payment behaviour whose checkout ends in manual review by design: the provider never decides it. */
    public static final Set<String> MANUAL_REVIEW_BY_DESIGN = Set.of("tok_unknown");

    /**
     * @param lost           accepted checkouts with no trace in the store, or never settled into a known state
     * @param duplicated     side effects done more than once (invariant 1)
     * @param invisibleStuck unfinished checkouts that do not say what they wait for (invariant 4)
     * @param violations     every invariant violation found (duplicates included)
     * @param effects        calls and messages counted at the provider and the mail sink (see {@link Effects})
     */
    public record Result(String fault, String boundary, int run, int checkouts, int lost, int duplicated, int invisibleStuck,
                  double recoverySeconds, List<String> violations, String effects) {
        boolean ok() {
            return lost == 0 && duplicated == 0 && invisibleStuck == 0 && violations.isEmpty();
        }

        Result withViolations(List<String> more) {
            List<String> all = new ArrayList<>(violations);
            all.addAll(more);
            int dup = duplicated + (int) more.stream().filter(m -> m.startsWith("1 ")).count();
            return new Result(fault, boundary, run, checkouts, lost, dup, invisibleStuck, recoverySeconds, all, effects);
        }

        public String row() {
            return String.format("| %s | %s | %d | %d | %d | %d | %d | %s | %.1f | %s |", fault, boundary, run,
                    checkouts, lost, duplicated, invisibleStuck, effects, recoverySeconds,
                    ok() ? "pass" : "FAIL " + (violations.size() <= 3 ? violations
                            : violations.subList(0, 3) + " and " + (violations.size() - 3) + " more"));
        }
    }

    // --------------------------------------------------------------------------------------------- scenarios

    /** kill -9 at a named step boundary (the process kills itself the {@code after}-th time it gets there). */
    public static Result crashAt(CrashPoint point, int after, int run, List<String> extraArgs) throws Exception {
        return crashAt(point, after, run, extraArgs, false);
    }

    /** @param edges on Stripe (the fake) and SMTP (GreenMail) instead of the simulator and the mail sink */
    public static Result crashAt(CrashPoint point, int after, int run, List<String> extraArgs, boolean edges) throws Exception {
        List<String> args = new ArrayList<>(extraArgs);
        args.add("--checkout.fault-injection.crash-at=" + point.slug());
        args.add("--checkout.fault-injection.crash-after=" + after);
        try (Run r = new Run((edges ? "edges-" : "") + "crash-" + point.slug() + "-" + run, edges)) {
            NodeProcess first = r.node("n1", args);
            r.submitWorkload(first.port());
            if (!first.awaitExit(Duration.ofSeconds(90))) {
                first.kill9();
                throw new AssertionError("crash point " + point.slug() + " was never reached " + after + " times");
            }
            // the recovering node has the same workflow settings (the checkouts' own are recorded in their histories)
            return r.recoverAndJudge("kill -9", point.slug() + (edges ? " [Stripe, SMTP]" : ""), run,
                    extraArgs.stream().filter(a -> a.startsWith("--checkout.workflow.")
                            || a.startsWith("--checkout.fault-injection.mutant=")).toList());
        }
    }

    /**
     * kill -9 at a random moment: after a random number of events has been appended (seeded by the run number, so a
     * failing run can be repeated), which lands anywhere in the workload.
     */
    public static Result randomKill(int run) throws Exception {
        long events = 20 + new Random(run * 7919L).nextInt(160);
        try (Run r = new Run("random-kill-" + run)) {
            NodeProcess first = r.node("n1", List.of());
            long base = r.eventCount();
            r.submitWorkload(first.port());
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(20))
                    .until(() -> r.eventCount() - base >= events);
            first.kill9();
            return r.recoverAndJudge("kill -9", "random moment (after " + events + " events)", run);
        }
    }

    /**
     * SIGSTOP one of two nodes for longer than its leases and segment claims while the other keeps working, then
     * SIGCONT: the paused node wakes with stale tokens and its late writes must be refused.
     */
    public static Result pause(int run) throws Exception {
        List<String> shortLeases = List.of("--checkout.workflow.lease-duration=2s",
                "--checkout.workflow.payment-lease-duration=3s");
        try (Run r = new Run("pause-" + run)) {
            NodeProcess first = r.node("n1", shortLeases);
            NodeProcess second = r.node("n2", shortLeases);
            r.submitWorkload(first.port());
            r.awaitAccepted(Duration.ofSeconds(60));
            first.signal("STOP");
            // from here the other node owns the frozen one's work: a resend of a receipt it handed over before the
            // pause is the other node's, after this moment (the resend window's order check, as after a kill)
            r.recoveryStartedAt = r.db.queryForObject("SELECT clock_timestamp()", java.sql.Timestamp.class);
            r.port.set(second.port());
            long started = System.nanoTime();
            // paused until it has lost both its leases and its segment claims to the other node
            try {
                // Under the lease rule of decision 40 a lease the frozen node held either expires (a claim that
                // stopped renewing) or is deferred first (no claim yet): either shows the other node acted on it.
                // A workload that n1 had already finished before the signal leaves no lease to lose.
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() ->
                        (r.count("SELECT count(*) FROM domainevententry WHERE payloadtype LIKE '%.ActivityLeaseExpiredEvent'"
                                + " OR payloadtype LIKE '%.ActivityLeaseDeferredEvent'") > 0
                                || r.accepted.stream().allMatch(id -> r.isSettled(id, r.states().get(id))))
                                && r.count("SELECT count(*) FROM tokenentry WHERE owner = 'n2'")
                                == r.count("SELECT count(*) FROM tokenentry"));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                second.signal("QUIT"); // a thread dump into n2's log: what its coordinators wait on
                // say which half of the condition never came, what the leases did meanwhile, and who holds what
                throw new AssertionError("pause condition not reached: segments n2/all "
                        + r.count("SELECT count(*) FROM tokenentry WHERE owner = 'n2'") + "/"
                        + r.count("SELECT count(*) FROM tokenentry") + "; lease events "
                        + r.db.queryForList("SELECT substring(payloadtype from '[^.]*$') || '=' || count(*)"
                        + " FROM domainevententry WHERE payloadtype LIKE '%Lease%' GROUP BY payloadtype", String.class)
                        + "; states " + r.states().values().stream().collect(Collectors.groupingBy(v -> v,
                        java.util.TreeMap::new, Collectors.counting()))
                        + "; claims " + r.db.queryForList("SELECT processorname || '[' || segment || ']=' ||"
                        + " coalesce(owner, '-') || '@' || coalesce(timestamp, '-') FROM tokenentry", String.class)
                        + "; sessions in a transaction " + r.db.queryForList("SELECT application_name || ' pid ' || pid"
                        + " || ' ' || state || ' ' || coalesce(wait_event_type || '/' || wait_event, '-') || ' for '"
                        + " || round(extract(epoch FROM now() - xact_start)) || ' s, blocked by '"
                        + " || pg_blocking_pids(pid)::text || ': ' || left(query, 100) FROM pg_stat_activity"
                        + " WHERE xact_start IS NOT NULL AND pid <> pg_backend_pid()", String.class), e);
            }
            first.signal("CONT");
            r.staleCallTolerated = true;
            return r.judge("SIGSTOP, SIGCONT", "two nodes; paused until the other took its claims and a lease expired", run, started);
        }
    }

    /** PostgreSQL stops and starts again under load; the nodes must reconnect and carry on. */
    public static Result databaseRestart(int run) throws Exception {
        try (Run r = new Run("db-restart-" + run)) {
            NodeProcess first = r.node("n1", List.of());
            long base = r.eventCount();
            r.submitWorkload(first.port());
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                    .until(() -> r.eventCount() - base >= 60); // well into the workload
            long started = System.nanoTime();
            r.restartDatabase();
            return r.judge("PostgreSQL restart", "under load", run, started);
        }
    }

    /**
     * Every processor's position is reset to the start of the stream after the workload finished: every intent,
     * result and event is delivered again to every worker, the saga and the read model. Nothing may happen twice.
     */
    public static Result redelivery(int run) throws Exception {
        return redelivery(run, "", List.of());
    }

    /**
     * @param label     appended to the run's name and boundary (a mutant's name)
     * @param extraArgs for both nodes (e.g. {@code --checkout.fault-injection.mutant=...})
     */
    public static Result redelivery(int run, String label, List<String> extraArgs) throws Exception {
        return redelivery(run, label, extraArgs, false);
    }

    public static Result redelivery(int run, String label, List<String> extraArgs, boolean edges) throws Exception {
        try (Run r = new Run((edges ? "edges-" : "") + "redelivery-" + run + (label.isEmpty() ? "" : "-" + label), edges)) {
            NodeProcess first = r.node("n1", extraArgs);
            r.submitWorkload(first.port());
            r.awaitSettled(Duration.ofSeconds(120));
            r.awaitResourcesCaughtUp();
            Map<String, String> before = r.states();
            // what was recorded before the redelivery: its attempts must not move, and nothing may be called for it
            Map<String, Integer> attemptsBefore = new java.util.HashMap<>();
            r.db.query("SELECT operation_id, attempts FROM payment_operations WHERE outcome_recorded_at IS NOT NULL",
                    rs -> {
                        attemptsBefore.put(rs.getString(1), rs.getInt(2));
                    });
            long lastCall = r.count("SELECT coalesce(max(id), 0) FROM simulator_calls");
            long lastMessage = r.count("SELECT coalesce(max(id), 0) FROM mail_sink_messages");
            first.close();
            r.db.update("UPDATE tokenentry SET token = NULL, tokentype = NULL, owner = NULL");
            long started = System.nanoTime();
            NodeProcess second = r.node("n2", extraArgs);
            r.port.set(second.port());
            // sentinels: new checkouts finish only once each single-segment processor has replayed everything
            List<String> sentinels = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                sentinels.add(r.submit(new Order(edges ? "pm_card_visa" : "tok_approve", false)));
            }
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                    .until(() -> sentinels.stream().allMatch(id -> "completed".equals(r.states().get(id))));
            await().atMost(Duration.ofSeconds(60)).during(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(500))
                    .until(r::eventCount, new StableCount());
            Map<String, String> after = r.states();
            List<String> changed = before.entrySet().stream()
                    .filter(e -> !e.getValue().equals(after.get(e.getKey())))
                    .map(e -> e.getKey() + ": " + e.getValue() + " -> " + after.get(e.getKey())).toList();
            Result result = r.judgeUnrecorded("every processor batch redelivered",
                    "all events to all processors" + (edges ? " [Stripe, SMTP]" : "")
                            + (label.isEmpty() ? "" : " [mutant " + label + "]"), run, started);
            List<String> more = new ArrayList<>();
            if (!changed.isEmpty()) {
                more.add("states changed by redelivery: " + changed);
            }
            List<String> repeatedCalls = r.db.queryForList("SELECT action || ' ' || idempotency_key FROM simulator_calls"
                    + " WHERE id > ? ORDER BY id", String.class, lastCall).stream()
                    .filter(c -> attemptsBefore.containsKey(c.substring(c.indexOf(' ') + 1))).toList();
            if (!repeatedCalls.isEmpty()) {
                more.add("1 redelivery called the provider for operations recorded before it: " + repeatedCalls);
            }
            List<String> repeatedMessages = r.db.queryForList("SELECT m.idempotency_key FROM mail_sink_messages m"
                    + " JOIN receipt_operations o ON o.operation_id = m.idempotency_key"
                    + " WHERE m.id > ? AND o.outcome_recorded_at IS NOT NULL AND m.sent_at > o.outcome_recorded_at",
                    String.class, lastMessage);
            if (!repeatedMessages.isEmpty()) {
                more.add("1 redelivery sent messages recorded as sent before it: " + repeatedMessages);
            }
            List<String> attemptsMoved = new ArrayList<>();
            r.db.query("SELECT operation_id, attempts FROM payment_operations", rs -> {
                Integer was = attemptsBefore.get(rs.getString(1));
                if (was != null && was != rs.getInt(2)) {
                    attemptsMoved.add(rs.getString(1) + ": " + was + " -> " + rs.getInt(2));
                }
            });
            if (!attemptsMoved.isEmpty()) {
                more.add("1 redelivery changed payment_operations.attempts of recorded operations: " + attemptsMoved);
            }
            Result judged = more.isEmpty() ? result : result.withViolations(more);
            record(judged);
            return judged;
        }
    }

    // ------------------------------------------------------------------------------------------------ a run

    /** One run: its own PostgreSQL, its nodes, the workload's checkouts and the client that retries them. */
    public static final class Run implements AutoCloseable {
        public final String name;
        final Path dataDir;
        final int pgPort;
        public EmbeddedPostgresServer postgres;
        public final JdbcTemplate db;
        public final List<NodeProcess> nodes = new ArrayList<>();
        public final AtomicInteger port = new AtomicInteger();
        public final Set<String> accepted = ConcurrentHashMap.newKeySet();
        /** When the recovering node was started, by the database's clock (a kill's node had died by then). */
        java.sql.Timestamp recoveryStartedAt;
        /**
         * A node frozen between its claim and its provider call makes that call when it wakes, after the new owner
         * recorded the outcome: nothing can stop a frozen process's next instruction. The call carries the original
         * operation id as its key (checked separately, and the provider answers from its record), and the stale
         * result is refused by its token; so the pause scenario tolerates this one check, which the redelivery
         * scenario and its mutant still enforce.
         */
        boolean staleCallTolerated;
        public final Set<String> toCancel = ConcurrentHashMap.newKeySet();
        /** The payment token of each accepted checkout: what its end should be. */
        public final Map<String, String> tokenOf = new ConcurrentHashMap<>();
        public final ExecutorService clients = Executors.newFixedThreadPool(8);
        public final List<CompletableFuture<Void>> submissions = new ArrayList<>();
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

        /** On Stripe and SMTP (null: the simulator and the demo mail sink). */
        final MatrixEdges edges;

        public Run(String name) throws IOException {
            this(name, false);
        }

        public Run(String name, boolean atTheEdges) throws IOException {
            this.name = name;
            this.edges = atTheEdges ? new MatrixEdges() : null;
            this.dataDir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "matrix-pg-");
            this.pgPort = NodeProcess.freePort();
            this.postgres = EmbeddedPostgresServer.start(dataDir, pgPort);
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setUrl(postgres.jdbcUrl());
            ds.setUser("postgres");
            this.db = new JdbcTemplate(ds);
        }

        NodeProcess node(String node, List<String> extra) throws IOException {
            List<String> args = new ArrayList<>(NODE_ARGS);
            args.add("--checkout.processing.node-id=" + node);
            // each deadline that ran, by node: what tells a deadline that fired and changed nothing from a lost one
            args.add("--checkout.deadlines.execution-log=true");
            args.addAll(extra);
            if (edges != null) args.addAll(edges.nodeArgs());
            // -Dmatrix.node-args="--a=b --c=d": appended to every node's arguments (e.g. to run a scenario as a mutant)
            args.addAll(List.of(System.getProperty("matrix.node-args", "").split(" ")).stream()
                    .filter(a -> !a.isBlank()).toList());
            NodeProcess p = NodeProcess.start("matrix-" + name + "-" + node, postgres.jdbcUrl(), args);
            nodes.add(p);
            port.compareAndSet(0, p.port());
            return p;
        }

        public void submitWorkload(int nodePort) {
            port.set(nodePort);
            for (Order order : workload()) {
                submissions.add(CompletableFuture.runAsync(() -> submit(order), clients));
            }
        }

        /** POST until some node answers 202, with the same Idempotency-Key every time (a client that retries). */
        public String submit(Order order) {
            String key = "matrix-" + UUID.randomUUID();
            String body = HttpApi.checkoutBody("SKU-00" + (10 + Math.floorMod(key.hashCode(), 40)), 1, 1500, order.token());
            String[] id = new String[1];
            await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(200)).until(() -> {
                HttpResponse<String> r = post("/api/v1/checkouts", key, body);
                if (r != null && r.statusCode() == 202) {
                    id[0] = r.body().replaceAll(".*\"checkoutId\":\"([^\"]+)\".*", "$1");
                    return true;
                }
                return false;
            });
            tokenOf.put(id[0], order.token());
            accepted.add(id[0]);
            if (order.cancelWhenCompleted()) {
                toCancel.add(id[0]);
            }
            return id[0];
        }

        List<Order> workload() {
            return edges == null ? WORKLOAD : MatrixEdges.WORKLOAD;
        }

        HttpResponse<String> post(String path, String idempotencyKey, String body) {
            try {
                HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port.get() + path))
                        .timeout(Duration.ofSeconds(5)).header("Authorization", "Bearer " + HttpApi.DEMO_KEY)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body == null ? "{}" : body));
                if (idempotencyKey != null) {
                    b.header("Idempotency-Key", idempotencyKey);
                }
                return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                return null; // the node is down, paused or restarting: the caller retries
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        void awaitAccepted(Duration timeout) {
            await().atMost(timeout).until(() -> submissions.stream().allMatch(CompletableFuture::isDone));
            submissions.forEach(CompletableFuture::join);
        }

        /** Recovery after the first node died: a fresh node on the same database finishes the work. */
        Result recoverAndJudge(String fault, String boundary, int run) throws Exception {
            return recoverAndJudge(fault, boundary, run, List.of());
        }

        Result recoverAndJudge(String fault, String boundary, int run, List<String> args) throws Exception {
            long started = System.nanoTime();
            recoveryStartedAt = db.queryForObject("SELECT clock_timestamp()", java.sql.Timestamp.class);
            NodeProcess second = node("n2", args);
            port.set(second.port());
            return judge(fault, boundary, run, started);
        }

        public Result judge(String fault, String boundary, int run, long startedNanos) {
            Result result = judgeUnrecorded(fault, boundary, run, startedNanos);
            record(result);
            return result;
        }

        Result judgeUnrecorded(String fault, String boundary, int run, long startedNanos) {
            awaitAccepted(Duration.ofSeconds(180));
            boolean settled = awaitSettledQuietly(Duration.ofSeconds(150));
            double seconds = (System.nanoTime() - startedNanos) / 1e9;
            awaitResourcesCaughtUp();
            Map<String, String> states = states();
            List<String> violations = new InvariantChecker(db, edges == null).violations().stream()
                    .filter(v -> !staleCallTolerated || !v.invariant().equals(InvariantChecker.CALL_AFTER_OUTCOME))
                    .map(v -> v.invariant() + ": " + v.evidence()).collect(Collectors.toCollection(ArrayList::new));
            int duplicated = (int) violations.stream().filter(v -> v.startsWith("1 ")).count();
            int lost = (int) accepted.stream().filter(id -> !states.containsKey(id)).count();
            int invisible = count("""
                    SELECT count(*) FROM checkout_summary WHERE NOT terminal AND state <> 'manual_review'
                      AND NOT view ? 'manualReview'
                      AND (waiting_reason IS NULL OR next_deadline IS NULL OR next_deadline < now() - interval '30 seconds')
                    """);
            if (!settled) {
                List<String> open = accepted.stream().filter(id -> !isSettled(id, states.get(id)))
                        .map(id -> id + "=" + states.get(id)).toList();
                violations.add("not settled within the time limit (visible, but still waiting): " + open);
            }
            // No scenario has an operator: only a checkout whose payment nobody can decide (tok_unknown) ends in manual
            // review by design. Any other there means the product gave up on work it could have finished (a pause
            // that burns every lease, say), which "settled" would otherwise hide.
            accepted.stream().filter(id -> "manual_review".equals(states.get(id)))
                    .filter(id -> !MANUAL_REVIEW_BY_DESIGN.contains(tokenOf.getOrDefault(id, "(token not recorded)"))
                            && !MatrixEdges.MANUAL_REVIEW_BY_DESIGN.contains(tokenOf.getOrDefault(id, "")))
                    .sorted()
                    .forEach(id -> violations.add("manual review for a checkout that should finish on its own: " + id
                            + " (" + tokenOf.get(id) + "): " + reviewReason(id)));
            String counted;
            if (edges != null) {
                // at the edges the effects are counted at the Stripe fake and the SMTP server (MatrixEdges)
                violations.addAll(edges.violations(db, resendWindow(fault, boundary), recoveryStartedAt,
                        staleCallTolerated));
                counted = edges.summary();
            } else {
                // the counting itself: a completed checkout's authorization and receipt must have reached the provider and
                // the mail service, or the effect checks above counted nothing and proved nothing
                db.query("""
                        SELECT checkout_id FROM checkout_summary s WHERE state = 'completed'
                          AND (NOT EXISTS (SELECT 1 FROM simulator_calls c
                                           WHERE c.idempotency_key = s.checkout_id || '/authorize-payment')
                               OR NOT EXISTS (SELECT 1 FROM mail_sink_messages m
                                              WHERE m.idempotency_key = s.checkout_id || '/send-receipt'))""",
                        rs -> {
                            violations.add("effects not counted for completed checkout " + rs.getString(1));
                        });
                Effects effects = Effects.count(db);
                effects.write(name);
                // Receipts and notices are at least once with a recognisable resend (docs/reliability.md): one message per
                // operation, except where the run can die between the hand-off to the mail service and our commit; there
                // the next owner sends once more, under the same key (the mail's Message-ID), and never a third time.
                // The resend must be the next owner's: the first message before the recovering node started (or the
                // signal), the second after; or, whatever the times, the two handed over by two different nodes. A
                // frozen node can finish its hand-off after it resumes, before it learns its claim was taken (seen
                // in CI at 7ac653d: n1 resumed and sent at 08.617, n2 at 08.697, n2 recorded it at 08.706, both
                // under token 1). Two messages of one attempt from one node, as a bug sends them, stay a violation.
                effects.perKey().getOrDefault("MAIL", Map.of()).forEach((key, sent) -> {
                    int allowed = resendWindow(fault, boundary) && (recoveryStartedAt == null || Boolean.TRUE.equals(
                            db.queryForObject("SELECT (min(sent_at) < ? AND max(sent_at) >= ?)"
                                    + " OR count(DISTINCT sent_by) = count(*) FROM mail_sink_messages"
                                    + " WHERE operation_id = ?", Boolean.class, recoveryStartedAt, recoveryStartedAt, key)))
                            ? 2 : 1;
                    if (sent > allowed) {
                        violations.add("1 one message per operation" + (allowed > 1 ? ", one resend in the crash window"
                                : " outside a crash window") + ": " + key + " sent " + sent + " times");
                    }
                });
                counted = effects.summary();
            }
            duplicated = (int) violations.stream().filter(v -> v.startsWith("1 ")).count();
            writeHistories(states);
            // how the run's checkouts ended, beside the effects: a run where nothing completed counts few effects
            String ended = states.entrySet().stream().filter(e -> accepted.contains(e.getKey()))
                    .collect(Collectors.groupingBy(Map.Entry::getValue, java.util.TreeMap::new, Collectors.counting()))
                    .toString();
            Result result = new Result(fault, boundary, run, accepted.size(), lost, duplicated, invisible, seconds,
                    violations, counted + "; ended " + ended);
            return result;
        }

        /**
         * The run's event counts by type, and the history of every checkout that went to manual review, as evidence
         * of why (target/reliability/history-RUN.md): sequence, time, event type and payload.
         */
        void writeHistories(Map<String, String> states) {
            StringBuilder out = new StringBuilder("Events of the run by type: ");
            db.query("SELECT payloadtype, count(*) FROM domainevententry GROUP BY 1 ORDER BY 1", rs -> {
                String type = rs.getString(1);
                out.append(type.substring(type.lastIndexOf('.') + 1)).append('=').append(rs.getLong(2)).append(' ');
            });
            out.append("\n\n");
            states.entrySet().stream().filter(e -> accepted.contains(e.getKey()))
                    .filter(e -> "manual_review".equals(e.getValue())).map(Map.Entry::getKey).sorted().forEach(id -> {
                        out.append("## ").append(id).append("\n\n");
                        db.query("""
                                SELECT sequencenumber, timestamp, payloadtype, convert_from(payload, 'UTF8')
                                FROM domainevententry WHERE aggregateidentifier = ? ORDER BY sequencenumber""",
                                rs -> {
                                    String type = rs.getString(3);
                                    out.append(rs.getLong(1)).append(' ').append(rs.getString(2)).append(' ')
                                            .append(type.substring(type.lastIndexOf('.') + 1)).append(' ')
                                            .append(rs.getString(4)).append('\n');
                                }, id);
                        out.append('\n');
                    });
            try {
                Path dir = Path.of("target", "reliability");
                Files.createDirectories(dir);
                Files.writeString(dir.resolve("history-" + name + ".md"), out.toString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Why the checkout went to manual review: the reason of its last ManualReviewRequiredEvent. */
        String reviewReason(String checkoutId) {
            List<String> reasons = db.queryForList("""
                    SELECT convert_from(payload, 'UTF8')::jsonb ->> 'reason' FROM domainevententry
                    WHERE aggregateidentifier = ? AND payloadtype LIKE '%.ManualReviewRequiredEvent'
                    ORDER BY sequencenumber DESC LIMIT 1""", String.class, checkoutId);
            return reasons.isEmpty() ? "?" : reasons.get(0);
        }

        /**
         * The payments processor records a decision the checkout took from other evidence (a notification, an
         * operator) shortly after the checkout did: give it a few seconds before judging.
         */
        void awaitResourcesCaughtUp() {
            try {
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250)).until(() -> count("""
                        SELECT count(*) FROM payment_operations p
                        WHERE p.kind = 'AUTHORIZE' AND p.status NOT IN ('AUTHORIZED', 'DECLINED')
                          AND EXISTS (SELECT 1 FROM domainevententry e WHERE e.aggregateidentifier = p.checkout_id
                                      AND e.payloadtype IN ('io.durablecheckout.api.checkout.PaymentAuthorizedEvent',
                                                            'io.durablecheckout.api.checkout.PaymentDeclinedEvent'))
                        """) == 0);
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                // the invariant checker reports what is still missing
            }
        }

        void awaitSettled(Duration timeout) {
            if (!awaitSettledQuietly(timeout)) {
                throw new AssertionError("workload did not settle: " + states());
            }
        }

        /** Settled: every checkout completed, cancelled, or waiting for an operator; requested cancellations done. */
        boolean awaitSettledQuietly(Duration timeout) {
            try {
                await().atMost(timeout).pollInterval(Duration.ofMillis(300)).until(() -> {
                    Map<String, String> states = states();
                    for (String id : toCancel) {
                        if ("completed".equals(states.get(id))) {
                            HttpResponse<String> r = post("/api/v1/checkouts/" + id + "/cancel", null,
                                    "{\"reason\":\"matrix\"}");
                            if (r == null || r.statusCode() != 202) {
                                return false;
                            }
                        }
                    }
                    return accepted.size() >= workload().size()
                            && accepted.stream().allMatch(id -> isSettled(id, states.get(id)));
                });
                return true;
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                return false;
            }
        }

        boolean isSettled(String id, String state) {
            if (toCancel.contains(id)) {
                return "cancelled".equals(state) || "manual_review".equals(state);
            }
            return "completed".equals(state) || "cancelled".equals(state) || "manual_review".equals(state);
        }

        public Map<String, String> states() {
            Map<String, String> states = new ConcurrentHashMap<>();
            db.query("SELECT checkout_id, state FROM checkout_summary", rs -> {
                states.put(rs.getString(1), rs.getString(2));
            });
            return states;
        }

        public long eventCount() {
            return count("SELECT count(*) FROM domainevententry");
        }

        void restartDatabase() throws IOException {
            postgres.close();
            postgres = EmbeddedPostgresServer.start(dataDir, pgPort);
        }

        public int count(String sql) {
            Long n = db.queryForObject(sql, Long.class);
            return n == null ? 0 : n.intValue();
        }

        @Override
        public void close() throws Exception {
            clients.shutdownNow();
            for (NodeProcess n : nodes) {
                if (n.alive()) {
                    n.signal("CONT");
                }
                n.close();
            }
            postgres.close();
            if (edges != null) edges.close();
        }
    }

    /** True once the value stopped changing (Awaitility's {@code during} holds it for a while). */
    public static final class StableCount implements org.hamcrest.Matcher<Long> {
        private Long last;

        @Override
        public boolean matches(Object actual) {
            boolean same = actual.equals(last);
            last = (Long) actual;
            return same;
        }

        @Override
        public void describeMismatch(Object item, org.hamcrest.Description description) {
            description.appendText("still changing: ").appendValue(item);
        }

        @Override
        @Deprecated
        public void _dont_implement_Matcher___instead_extend_BaseMatcher_() {
        }

        @Override
        public void describeTo(org.hamcrest.Description description) {
            description.appendText("a count that stopped changing");
        }
    }

    /**
     * Effects counted where they happen: per operation (its idempotency key), how many calls the provider simulator
     * received and how many messages the mail sink got, beside what our tables recorded ({@code attempts}).
     */
    public record Effects(List<String> rows, Map<String, int[]> byAction, Map<String, Map<String, Integer>> perKey) {

        public static Effects count(JdbcTemplate db) {
            List<String> rows = new ArrayList<>();
            Map<String, int[]> byAction = new java.util.TreeMap<>();
            Map<String, Map<String, Integer>> perKey = new java.util.TreeMap<>();
            db.query("""
                    SELECT c.action, c.key, c.calls, p.status, p.attempts FROM (
                        SELECT action, coalesce(idempotency_key, operation_id) AS key, count(*) AS calls
                        FROM simulator_calls GROUP BY 1, 2
                        UNION ALL
                        SELECT 'MAIL', coalesce(idempotency_key, operation_id), count(*) FROM mail_sink_messages
                        GROUP BY 1, 2) c
                    LEFT JOIN payment_operations p ON p.operation_id = c.key
                    ORDER BY 1, 2""", rs -> {
                String action = rs.getString(1);
                int calls = rs.getInt(3);
                rows.add("| " + action + " | " + rs.getString(2) + " | " + calls + " | "
                        + (rs.getString(4) == null ? "" : rs.getString(4)) + " | "
                        + (rs.getString(5) == null ? "" : rs.getString(5)) + " |");
                perKey.computeIfAbsent(action, a -> new java.util.TreeMap<>()).put(rs.getString(2), calls);
                int[] agg = byAction.computeIfAbsent(action, a -> new int[3]); // operations, calls, max per operation
                agg[0]++;
                agg[1] += calls;
                agg[2] = Math.max(agg[2], calls);
            });
            return new Effects(rows, byAction, perKey);
        }

        /** {@code authorize 18 ops/22 calls (max 3)} per action; MAIL counts messages. */
        String summary() {
            return byAction.entrySet().stream().map(e -> e.getKey().toLowerCase(java.util.Locale.ROOT) + " "
                            + e.getValue()[0] + "/" + e.getValue()[1] + " (max " + e.getValue()[2] + ")")
                    .collect(Collectors.joining(", "));
        }

        void write(String runName) {
            try {
                Path dir = Path.of("target", "reliability");
                Files.createDirectories(dir);
                Files.writeString(dir.resolve("effects-" + runName + ".md"), "| Action | Operation (key) | Calls"
                        + " | Recorded status | Recorded attempts |\n|---|---|---|---|---|\n" + String.join("\n", rows)
                        + "\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * The rows whose fault can land between a message's hand-off to the mail service and the commit that records it
     * (docs/reliability.md, "Receipts: at least once"): a kill at that boundary or mid-batch, a kill at a random
     * moment, and PostgreSQL restarting under load (the commit fails after the send).
     */
    public static boolean resendWindow(String fault, String boundary) {
        // kill -9 stops every processor of the node at once, whichever boundary one of them reached: the receipts
        // processor may be between its hand-off to the mail service and its commit at any of them (seen at the
        // reconciliation-lookup boundary: the mail handed over at 07:41:23.23, its claim rolled back by the kill)
        // (ScaleOutIT's "kill -9 one of three nodes" too: seen there, the victim's receipt at 02:53:09.17, the same
        // operation and fencing token sent again by the segment's next owner at 02:53:10.56, then recorded)
        // SIGSTOP past leases and claims is the same window seen from the cluster: frozen between its hand-off and
        // its commit, the node's claim is taken over and the next owner sends once more (seen in CI at 84ee05c: two
        // receipts of a pause run, one each side of the signal, and nothing sent after the outcome was recorded)
        return fault.equals("PostgreSQL restart") || fault.startsWith("kill -9") || fault.startsWith("SIGSTOP");
    }

    public static void record(Result r) {
        System.out.println("MATRIX " + r.row());
        try {
            Path dir = Path.of("target", "reliability");
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("matrix.md"), r.row() + System.lineSeparator(), StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private FaultMatrix() {
    }
}
