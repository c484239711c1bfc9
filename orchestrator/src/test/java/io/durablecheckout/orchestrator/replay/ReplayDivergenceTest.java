package io.durablecheckout.orchestrator.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.orchestrator.checkout.CheckoutDecider;
import io.durablecheckout.orchestrator.checkout.Decision;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the replayer reports when today's Checkout decides otherwise than a history recorded, beyond a different event
 * type (ReplayCorpusTest): a different value in an event of the same type, and a different deadline with the same
 * events. Each is made by changing what the history recorded (as code of another day would have recorded it) and
 * replaying it with the real Checkout, so the decision function itself produces the difference.
 */
class ReplayDivergenceTest {

    /** The happy path: 9 events, leases of 30 s for every step. */
    private static final String COMPLETED = "CheckoutCompleted-15fe56cd.json";

    private JsonNode bundle;

    @BeforeEach
    void theHappyPath() throws Exception {
        Path file = ReplayCorpusTest.bundles().stream().filter(f -> f.getFileName().toString().equals(COMPLETED))
                .findFirst().orElseThrow();
        bundle = RecordedInputs.MAPPER.readTree(file.toFile());
        assertThat(new CheckoutReplayer().replay(HistoryBundle.read(bundle)).identical()).isTrue();
    }

    /**
     * The checkout recorded a 20 s lease policy: today's code grants the reservation a lease 10 s shorter than the
     * one recorded. Same event type, one field apart: reported at that event, naming the field and both values.
     */
    @Test
    void an_event_of_the_same_type_with_another_value_is_reported_with_the_field_that_differs() {
        ((ObjectNode) event(0).path("payload").path("policy")).put("leaseDuration", 20.0);
        String recordedExpiry = event(1).path("payload").path("lease").path("expiresAt").asText();
        String producedExpiry = Instant.parse(recordedExpiry).minusSeconds(10).toString();

        ReplayReport report = new CheckoutReplayer().replay(HistoryBundle.read(bundle));

        assertThat(report.verdict()).isEqualTo(ReplayReport.Verdict.DIVERGED);
        ReplayReport.Divergence d = report.divergence();
        assertThat(d.position()).isEqualTo(1);
        assertThat(d.what()).isEqualTo("event");
        assertThat(d.recorded()).startsWith("StockReservationRequestedEvent ");
        assertThat(d.produced()).startsWith("StockReservationRequestedEvent ");
        assertThat(d.differences()).containsExactly(
                "lease.expiresAt: \"" + recordedExpiry + "\" -> \"" + producedExpiry + "\"");
        assertThat(report.render()).contains("lease.expiresAt");
    }

    /**
     * The history recorded no cancel of the reservation's lease deadline when the reservation succeeded; today's code
     * cancels it. The events are the same: the deadlines alone differ, and that is reported.
     */
    @Test
    void a_deadline_cancelled_where_none_was_recorded_is_reported_with_the_same_events() {
        ArrayNode ops = (ArrayNode) event(3).path("metaData").path(RecordedInputs.DEADLINES);
        assertThat(ops.get(0).path("op").asText()).isEqualTo("cancel");
        ops.remove(0);

        ReplayReport report = new CheckoutReplayer().replay(HistoryBundle.read(bundle));

        assertThat(report.verdict()).isEqualTo(ReplayReport.Verdict.DIVERGED);
        ReplayReport.Divergence d = report.divergence();
        assertThat(d.what()).isEqualTo("deadlines");
        assertThat(d.position()).isEqualTo(3);
        assertThat(d.inputNumber()).isEqualTo(2);
        assertThat(d.input()).containsEntry("type", "RecordActivityResultCommand");
        assertThat(d.differences()).contains("[0].op: \"schedule\" -> \"cancel\"");
    }

    /** The history recorded the authorization's lease deadline a second later than today's code schedules it. */
    @Test
    void a_deadline_scheduled_for_another_time_is_reported_with_the_same_events() {
        ObjectNode schedule = (ObjectNode) event(3).path("metaData").path(RecordedInputs.DEADLINES).get(1);
        String due = schedule.path("due").asText();
        String recordedDue = Instant.parse(due).plusSeconds(1).toString();
        schedule.put("due", recordedDue);

        ReplayReport report = new CheckoutReplayer().replay(HistoryBundle.read(bundle));

        assertThat(report.verdict()).isEqualTo(ReplayReport.Verdict.DIVERGED);
        ReplayReport.Divergence d = report.divergence();
        assertThat(d.what()).isEqualTo("deadlines");
        assertThat(d.position()).isEqualTo(3);
        assertThat(d.differences()).containsExactly("[1].due: \"" + recordedDue + "\" -> \"" + due + "\"");
        assertThat(d.recordedAfter()).startsWith("PaymentAuthorizedEvent");
    }

    /** Today's code decides one event more than was recorded: reported where the recorded input's events end. */
    @Test
    void an_event_more_than_recorded_is_reported_after_the_recorded_ones() {
        ReplayReport report = CheckoutReplayer.forVariant((input, facts, now) -> {
            Decision decided = CheckoutDecider.decide(input, facts, now);
            List<CheckoutEvent> more = new ArrayList<>(decided.events());
            more.add(new CheckoutCompletedEvent(facts.checkoutId()));
            return new Decision(more, decided.cancel(), decided.schedule());
        }).replay(HistoryBundle.read(bundle));

        assertThat(report.verdict()).isEqualTo(ReplayReport.Verdict.DIVERGED);
        ReplayReport.Divergence d = report.divergence();
        assertThat(d.inputNumber()).isEqualTo(2);
        assertThat(d.position()).isEqualTo(4);
        assertThat(d.differences()).containsExactly("(no event recorded here) -> CheckoutCompletedEvent");
        assertThat(d.recorded()).isEqualTo("(none)");
        assertThat(d.produced()).startsWith("CheckoutCompletedEvent ");
        assertThat(report.timeline()).extracting(ReplayReport.Step::number).containsExactly(1, 2);
        assertThat(report.timeline()).extracting(ReplayReport.Step::identical).containsExactly(true, false);
    }

    /** Today's code decides one event fewer than was recorded: reported at the recorded event it no longer makes. */
    @Test
    void an_event_fewer_than_recorded_is_reported_at_the_missing_one() {
        ReplayReport report = CheckoutReplayer.forVariant((input, facts, now) -> {
            Decision decided = CheckoutDecider.decide(input, facts, now);
            return new Decision(decided.events().subList(0, decided.events().size() - 1), decided.cancel(),
                    decided.schedule());
        }).replay(HistoryBundle.read(bundle));

        ReplayReport.Divergence d = report.divergence();
        assertThat(d.inputNumber()).isEqualTo(2);
        assertThat(d.position()).isEqualTo(3);
        assertThat(d.differences()).containsExactly("PaymentAuthorizationRequestedEvent -> (no event produced)");
        assertThat(d.produced()).isEqualTo("(none)");
    }

    @Test
    void a_history_without_events_or_without_recorded_inputs_is_not_replayable() {
        ReplayReport empty = new CheckoutReplayer().replay("chk-empty", List.of());
        assertThat(empty.verdict()).isEqualTo(ReplayReport.Verdict.NOT_REPLAYABLE);
        assertThat(empty.problem()).isEqualTo("no events");

        ((ObjectNode) event(0).path("metaData")).remove(RecordedInputs.INPUT);
        ReplayReport unrecorded = new CheckoutReplayer().replay(HistoryBundle.read(bundle));
        assertThat(unrecorded.verdict()).isEqualTo(ReplayReport.Verdict.NOT_REPLAYABLE);
        assertThat(unrecorded.problem()).startsWith("event 0 (CheckoutCreatedEvent) has no recorded input");
    }

    /** Today's code refuses an input the history recorded: reported at that input, with what was recorded from it on. */
    @Test
    void an_input_today_s_code_refuses_is_reported_with_the_events_recorded_from_it_on() {
        ReplayReport report = CheckoutReplayer.forVariant((input, facts, now) -> {
            throw new IllegalStateException("refused today");
        }).replay(HistoryBundle.read(bundle));

        ReplayReport.Divergence d = report.divergence();
        assertThat(d.what()).isEqualTo("error");
        assertThat(d.inputNumber()).isEqualTo(2);
        assertThat(d.produced()).isEqualTo("IllegalStateException: refused today");
        assertThat(d.recordedAfter()).hasSize(7).first().asString().contains("StockReserved");
    }

    @Test
    void an_identical_replay_numbers_every_input_of_its_timeline() {
        ReplayReport report = new CheckoutReplayer().replay(HistoryBundle.read(bundle));

        assertThat(report.timeline()).extracting(ReplayReport.Step::number).containsExactly(1, 2, 3, 4);
        assertThat(report.timeline()).allMatch(ReplayReport.Step::identical);
    }

    private ObjectNode event(int sequence) {
        JsonNode e = bundle.path("events").get(sequence);
        assertThat(e.path("sequence").asInt()).isEqualTo(sequence);
        return (ObjectNode) e;
    }
}
