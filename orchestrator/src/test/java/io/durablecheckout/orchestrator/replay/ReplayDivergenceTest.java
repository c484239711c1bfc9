package io.durablecheckout.orchestrator.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Instant;

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

    private ObjectNode event(int sequence) {
        JsonNode e = bundle.path("events").get(sequence);
        assertThat(e.path("sequence").asInt()).isEqualTo(sequence);
        return (ObjectNode) e;
    }
}
