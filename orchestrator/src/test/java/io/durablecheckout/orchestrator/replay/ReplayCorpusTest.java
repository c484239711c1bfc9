package io.durablecheckout.orchestrator.replay;

import io.durablecheckout.orchestrator.serialization.EventUpcasters;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durablecheckout.api.activity.PaymentAuthorizationDeclinedEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationOutcomeUnknownEvent;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.orchestrator.checkout.CheckoutDecider;
import io.durablecheckout.orchestrator.checkout.CheckoutFacts;
import io.durablecheckout.orchestrator.checkout.Decision;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The determinism gate: every bundle of the replay corpus (histories recorded from the integration scenarios, and
 * the lease and notification paths by {@link CorpusRecorderTest}; see docs/replay.md to record them again) replays identically with today's code, on every build. And a changed decision
 * does not: it is reported with the position and the input where it first shows.
 */
class ReplayCorpusTest {

    static final String CORPUS = "replay-corpus";

    static List<Path> bundles() throws IOException, URISyntaxException {
        Path dir = Path.of(ReplayCorpusTest.class.getClassLoader().getResource(CORPUS).toURI());
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        }
    }

    @TestFactory
    Stream<DynamicTest> every_bundle_in_the_corpus_replays_identically() throws Exception {
        return bundles().stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(),
                () -> ReplayAssertions.assertReplaysIdentically(CORPUS + "/" + file.getFileName())));
    }

    /** The paths of docs/workflow.md, by the events that only they record. */
    @Test
    void the_corpus_walks_every_path_of_the_workflow() throws Exception {
        Set<String> seen = new TreeSet<>();
        for (Path file : bundles()) {
            for (JsonNode type : RecordedInputs.MAPPER.readTree(file.toFile()).path("path")) {
                seen.add(type.asText());
            }
        }
        assertThat(seen).contains(
                "CheckoutCompletedEvent",                 // happy path
                "PaymentDeclinedEvent",                   // decline -> release -> cancelled
                "PaymentOutcomeUnknownEvent",             // timeout is unknown
                "PaymentReconciliationRequestedEvent",    // reconciliation under the original operation id
                "ManualReviewRequiredEvent",              // lookups exhausted
                "ManualReviewResolvedEvent",              // operator resolution (and dispute closed)
                "OperatorRetryRequestedEvent",            // operator retry
                "ActivityRetryScheduledEvent",            // provider down: retry under the same operation id
                "CheckoutCancellationRequestedEvent",     // customer / operator cancellation
                "PaymentVoidedEvent",                     // cancel after authorization, operator decline
                "PaymentRefundedEvent",                   // cancel after completion
                "CancellationNoticeSentEvent",            // a receipt cannot be unsent
                "PaymentOutcomeDisputedEvent",            // a contradicting provider notification
                "StockReleasedEvent",
                "CheckoutCancelledEvent",
                // recorded in-process by CorpusRecorderTest (a lease must run out, or a worker fall silent)
                "ActivityLeaseRenewedEvent",              // the owner's heartbeat extends its lease
                "ActivityLeaseExpiredEvent",              // a claimed lease runs out: issued again, next token
                "ActivityLeaseDeferredEvent",             // an unclaimed lease is deferred once
                "ActivityResultRejectedEvent",            // the fenced-out owner's late result
                "ProviderNotificationHeldEvent");         // the provider's word held during a review
    }

    /**
     * Replay reads each recorded input's payload straight from the stored metadata's bytes (docs/decisions.md §52):
     * for every input of the corpus it must be exactly the command or deadline payload the recorded JSON says, and
     * the input as a map (what reports show) must be the recorded one.
     */
    @Test
    void every_recorded_input_is_read_as_the_command_or_deadline_payload_it_records() throws Exception {
        Set<String> seen = new TreeSet<>();
        for (Path file : bundles()) {
            JsonNode bundle = RecordedInputs.MAPPER.readTree(file.toFile());
            List<HistoryEvent> events = HistoryBundle.read(bundle).events();
            for (int i = 0; i < events.size(); i++) {
                HistoryEvent event = events.get(i);
                JsonNode input = bundle.path("events").get(i).path("metaData").get(RecordedInputs.INPUT);
                if (input == null) {
                    assertThat(event.inputPayload()).isNull();
                    continue;
                }
                Class<?> type = "command".equals(input.path("kind").asText())
                        ? RecordedInputs.COMMANDS.get(input.path("type").asText())
                        : RecordedInputs.DEADLINE_PAYLOADS.get(input.path("payloadType").asText());
                assertThat(event.inputPayload().as(type)).as("%s event %d", file.getFileName(), i)
                        .isEqualTo(RecordedInputs.MAPPER.treeToValue(input.path("payload"), type));
                // as JSON: a number read as an int in one reading and a long in the other is the same number
                assertThat(RecordedInputs.MAPPER.writeValueAsString(event.input())).isEqualTo(RecordedInputs.MAPPER
                        .writeValueAsString(RecordedInputs.MAPPER.convertValue(input, Map.class)));
                seen.add(type.getSimpleName());
            }
        }
        assertThat(seen).contains("StartCheckoutCommand", "RecordActivityResultCommand", "RequestCancellationCommand",
                "ResolveManualReviewCommand", "RetryActivityCommand", "RecordProviderNotificationCommand",
                "RetryDue", "ReconciliationDue", "RenewLeaseCommand", "LeaseExpiry");
    }

    /** Acceptance: a deliberately changed decision (a decline taken for an unknown outcome) is reported. */
    @Test
    void a_changed_decision_is_reported_at_its_position_with_its_input() throws Exception {
        Path declined = bundles().stream().filter(f -> read(f).contains("PaymentAuthorizationDeclinedEvent"))
                .findFirst().orElseThrow();
        StoredHistories.History history = HistoryBundle.read(declined);
        assertThat(new CheckoutReplayer().replay(history).identical()).isTrue();

        ReplayReport report = CheckoutReplayer.forVariant(ReplayCorpusTest::declineTakenForUnknown)
                .replay(history);

        assertThat(report.verdict()).isEqualTo(ReplayReport.Verdict.DIVERGED);
        long declinedAt = history.events().stream().filter(e -> e.type().equals("PaymentDeclinedEvent"))
                .findFirst().orElseThrow().sequence();
        ReplayReport.Divergence d = report.divergence();
        assertThat(d.position()).isEqualTo(declinedAt);
        assertThat(d.input()).containsEntry("type", "RecordActivityResultCommand");
        assertThat(d.input().get("payload").toString()).contains("PaymentAuthorizationDeclinedEvent");
        assertThat(d.differences()).containsExactly("type: PaymentDeclinedEvent -> PaymentOutcomeUnknownEvent");
        assertThat(d.recordedAfter()).contains("StockReleaseRequestedEvent", "CheckoutCancelledEvent");
        assertThat(d.producedAfter()).containsExactly("PaymentReconciliationScheduledEvent");
        assertThat(report.render()).contains("first difference at position " + declinedAt)
                .contains("command RecordActivityResultCommand").contains("what follows:");
    }

    /** Reading a history at today's revisions skips the upcaster chain but stays strict: an unknown field is refused. */
    @Test
    void an_unknown_field_in_a_stored_event_at_todays_revision_is_refused() throws Exception {
        JsonNode bundle = RecordedInputs.MAPPER.readTree(bundles().get(0).toFile());
        JsonNode last = bundle.path("events").get(bundle.path("events").size() - 1);
        ((ObjectNode) last.path("payload")).put("renamedField", "x");

        assertThatThrownBy(() -> HistoryBundle.read(bundle)).hasStackTraceContaining("renamedField");
    }

    /** The bulk run's quick verdict (no timeline for identical histories) still reports a divergence in full. */
    @Test
    void the_bulk_verdict_reports_a_changed_decision_as_the_full_replay_does() throws Exception {
        Path declined = bundles().stream().filter(f -> read(f).contains("PaymentAuthorizationDeclinedEvent"))
                .findFirst().orElseThrow();
        StoredHistories.History history = HistoryBundle.read(declined);
        ReplayReport quick = new CheckoutReplayer().verdict(history);
        assertThat(quick.identical()).isTrue();
        assertThat(quick.timeline()).isEmpty();

        CheckoutReplayer variant = CheckoutReplayer.forVariant(ReplayCorpusTest::declineTakenForUnknown);
        ReplayReport full = variant.replay(history);
        ReplayReport bulk = variant.verdict(history);
        assertThat(bulk.verdict()).isEqualTo(ReplayReport.Verdict.DIVERGED);
        assertThat(bulk.divergence().position()).isEqualTo(full.divergence().position());
        assertThat(bulk.divergence().input()).isEqualTo(full.divergence().input());
        assertThat(bulk.render()).isEqualTo(full.render());
    }

    /**
     * The bulk run's lean reading (each input's payload left unparsed in the metadata map) gives every corpus history
     * the verdict the full reading gives, and a changed decision still diverges at the same position.
     */
    @Test
    void the_lean_reading_for_a_verdict_agrees_with_the_full_reading() throws Exception {
        StoredHistories reader = new StoredHistories(null,
                io.durablecheckout.orchestrator.serialization.AxonJson.strictEventSerializer(), EventUpcasters.chain());
        CheckoutReplayer replayer = new CheckoutReplayer();
        CheckoutReplayer variant = CheckoutReplayer.forVariant(ReplayCorpusTest::declineTakenForUnknown);
        int diverged = 0;
        for (Path file : bundles()) {
            StoredHistories.History full = HistoryBundle.read(file);
            StoredHistories.History lean = reader.historyForVerdict(full.checkoutId(), full.rows());
            assertThat(lean.events()).hasSameSizeAs(full.events());
            assertThat(lean.events().get(0).input()).doesNotContainKey("payload");
            assertThat(replayer.quick(lean).verdict()).as(file.toString()).isEqualTo(ReplayReport.Verdict.IDENTICAL);
            ReplayReport changed = variant.quick(lean);
            ReplayReport reference = variant.replay(full);
            assertThat(changed.verdict()).as(file.toString()).isEqualTo(reference.verdict());
            if (!reference.identical()) {
                diverged++;
                assertThat(changed.divergence().position()).isEqualTo(reference.divergence().position());
            }
        }
        assertThat(diverged).as("bundles the changed decision diverges on").isPositive();
    }

    /** Acceptance: fewer attempts (here: as many as the history used) end the retries one failure earlier. */
    @Test
    void fewer_attempts_are_reported_at_the_failure_that_now_exhausts_them() throws Exception {
        Path retried = bundles().stream().filter(f -> read(f).contains("ActivityRetryScheduledEvent"))
                .findFirst().orElseThrow();
        JsonNode bundle = RecordedInputs.MAPPER.readTree(retried.toFile());
        StoredHistories.History recorded = HistoryBundle.read(bundle);
        List<HistoryEvent> retries = recorded.events().stream()
                .filter(e -> e.type().equals("ActivityRetryScheduledEvent")).toList();
        // the policy recorded 8 attempts; the rule now allows only as many as this history failed
        ((ObjectNode) bundle.path("events").get(0).path("payload").path("policy")).put("maxAttempts", retries.size());

        ReplayReport report = new CheckoutReplayer().replay(HistoryBundle.read(bundle));

        assertThat(report.verdict()).isEqualTo(ReplayReport.Verdict.DIVERGED);
        ReplayReport.Divergence d = report.divergence();
        assertThat(d.position()).isEqualTo(retries.get(retries.size() - 1).sequence());
        assertThat(d.input().get("payload").toString()).contains("ActivityAttemptFailedEvent");
        assertThat(d.differences()).containsExactly("type: ActivityRetryScheduledEvent -> ManualReviewRequiredEvent");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A mutant: takes a decline for an unknown outcome (so it would reconcile instead of releasing the stock). */
    static Decision declineTakenForUnknown(Object input, CheckoutFacts facts, Instant now) {
        if (input instanceof RecordActivityResultCommand cmd && cmd.result() instanceof PaymentAuthorizationDeclinedEvent r) {
            input = new RecordActivityResultCommand(cmd.checkoutId(), new PaymentAuthorizationOutcomeUnknownEvent(
                    r.checkoutId(), r.operationId(), r.fencingToken(), r.reason()), cmd.observedAt());
        }
        return CheckoutDecider.decide(input, facts, now);
    }
}
