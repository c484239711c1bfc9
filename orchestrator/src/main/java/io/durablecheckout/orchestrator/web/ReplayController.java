package io.durablecheckout.orchestrator.web;

import io.durablecheckout.orchestrator.service.CheckoutService;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.orchestrator.readmodel.CheckoutView;
import io.durablecheckout.orchestrator.readmodel.CheckoutViewFolder;
import io.durablecheckout.orchestrator.replay.CheckoutReplayer;
import io.durablecheckout.orchestrator.replay.HistoryBundle;
import io.durablecheckout.orchestrator.replay.ReplayTypes;
import io.durablecheckout.orchestrator.serialization.PlainShapes;
import io.durablecheckout.orchestrator.replay.ReplayReport;
import io.durablecheckout.orchestrator.replay.StateChanges;
import io.durablecheckout.orchestrator.replay.StoredHistories;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.axonframework.eventhandling.DomainEventMessage;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Debugging one checkout from its history (docs/replay.md): its state after any event and what that event changed
 * (time travel), a replay of its decisions with today's code, and its history bundle. Tenant-scoped like the rest of
 * the API: another tenant's checkout does not exist for the caller.
 */
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
@RestController
@RequestMapping("/api/v1/checkouts")
public class ReplayController {

    private final CheckoutService checkouts;
    private final StoredHistories histories;
    private final CheckoutReplayer replayer;
    private final Clock clock;

    public ReplayController(CheckoutService checkouts, StoredHistories histories, CheckoutReplayer replayer,
                            Clock clock) {
        this.checkouts = checkouts;
        this.histories = histories;
        this.replayer = replayer;
        this.clock = clock;
    }

    /**
     * @param event    the event at sequence {@code n} (plain shapes)
     * @param state    the checkout as the API shows it, after that event
     * @param changes  what the event changed in it, {@code field: before -> after}
     * @param previous link to the state before, {@code next} to the state after the next event
     */
    public record StateAt(String checkoutId, long sequence, int of, String type, Instant timestamp, Object event,
                          Object state, List<String> changes, Map<String, String> links) {
    }

    @GetMapping("/{checkoutId}/history/{n}/state")
    public StateAt stateAt(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                           @PathVariable String checkoutId, @PathVariable String n) {
        long sequence;
        try {
            sequence = Long.parseLong(n);
        } catch (NumberFormatException e) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid event number",
                    "The event number is a sequence number (0 is the creation), not '" + n + "'");
        }
        List<DomainEventMessage<?>> events = checkouts.history(caller, checkoutId);
        if (events.isEmpty()) {
            throw CheckoutController.notFound(checkoutId);
        }
        if (sequence < 0 || sequence >= events.size()) {
            throw new ApiProblemException(HttpStatus.NOT_FOUND, "not-found", "No such event",
                    "Checkout " + checkoutId + " has events 0.." + (events.size() - 1) + ", not " + sequence);
        }
        CheckoutView view = null;
        JsonNode before = null;
        for (int i = 0; i <= sequence; i++) {
            DomainEventMessage<?> m = events.get(i);
            if (i == sequence) {
                before = view == null ? null : PlainShapes.tree(view);
            }
            view = CheckoutViewFolder.fold(view, (CheckoutEvent) m.getPayload(), m.getSequenceNumber(),
                    m.getTimestamp());
        }
        JsonNode after = PlainShapes.tree(view);
        DomainEventMessage<?> at = events.get((int) sequence);
        Map<String, String> links = new java.util.LinkedHashMap<>();
        String base = "/api/v1/checkouts/" + checkoutId + "/history/";
        if (sequence > 0) {
            links.put("previous", base + (sequence - 1) + "/state");
        }
        if (sequence + 1 < events.size()) {
            links.put("next", base + (sequence + 1) + "/state");
        }
        links.put("history", "/api/v1/checkouts/" + checkoutId + "/history");
        // sealed personal fields are opened (or shown as erased) as in the rest of the API
        return new StateAt(checkoutId, sequence, events.size(), at.getPayloadType().getSimpleName(),
                at.getTimestamp(), checkouts.revealedPayload(checkoutId, PlainShapes.of(at.getPayload())),
                checkouts.revealedPayload(checkoutId, PlainShapes.of(after)), StateChanges.between(before, after),
                links);
    }

    /** Re-runs the checkout's recorded decisions with today's code; the verdict and, on a divergence, where and why. */
    @GetMapping("/{checkoutId}/replay")
    public Map<String, Object> replay(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                      @PathVariable String checkoutId) {
        StoredHistories.History history = visible(caller, checkoutId);
        ReplayReport report = replayer.replay(history);
        Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("checkoutId", checkoutId);
        body.put("verdict", report.verdict().name().toLowerCase(java.util.Locale.ROOT));
        body.put("events", report.events());
        body.put("timeline", PlainShapes.of(report.timeline()));
        if (report.divergence() != null) {
            body.put("divergence", PlainShapes.of(report.divergence()));
            body.put("consequence", report.consequence());
        }
        if (report.problem() != null) {
            body.put("problem", report.problem());
        }
        body.put("report", report.render());
        return body;
    }

    /** The checkout's history as one JSON file, personal fields redacted (docs/replay.md). */
    @GetMapping("/{checkoutId}/bundle")
    public ResponseEntity<byte[]> bundle(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                         @PathVariable String checkoutId) throws Exception {
        StoredHistories.History history = visible(caller, checkoutId);
        byte[] json = com.fasterxml.jackson.databind.json.JsonMapper.builder().build().writerWithDefaultPrettyPrinter()
                .writeValueAsBytes(HistoryBundle.export(history, clock.instant()));
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON)
                .header(HttpHeaders.CONTENT_DISPOSITION, "attachment; filename=\"checkout-" + checkoutId + ".json\"")
                .body(json);
    }

    private StoredHistories.History visible(Caller caller, String checkoutId) {
        if (checkouts.history(caller, checkoutId).isEmpty()) { // tenant scope: same rule as /history
            throw CheckoutController.notFound(checkoutId);
        }
        StoredHistories.History history;
        try {
            history = histories.load(checkoutId);
        } catch (ReplayTypes.RefusedTypeException e) { // a stored row naming a foreign type: never instantiated
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "History not replayable",
                    "Checkout " + checkoutId + " has a " + e.getMessage());
        }
        if (history == null) {
            throw CheckoutController.notFound(checkoutId);
        }
        return history;
    }
}
