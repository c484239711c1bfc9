package io.durablecheckout.orchestrator.replay;

import io.durablecheckout.orchestrator.serialization.PlainShapes;
import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.command.CheckoutCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.orchestrator.checkout.CheckoutDecider;
import io.durablecheckout.orchestrator.checkout.Deadlines;
import io.durablecheckout.orchestrator.checkout.CheckoutFacts;
import io.durablecheckout.orchestrator.checkout.Decision;
import io.durablecheckout.orchestrator.checkout.WorkflowPolicy;
import io.durablecheckout.orchestrator.replay.ReplayReport.Divergence;
import io.durablecheckout.orchestrator.replay.ReplayReport.Verdict;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Re-runs today's decision function over a recorded history, with no side effects: no repository, no event store,
 * no deadline manager. Each recorded input (command or fired timer) is decided, in order, against the facts the
 * recorded events before it say, and the {@link Decision} (events, timers cancelled and scheduled with their due
 * times) is compared with what was recorded for that input. The first difference ends the replay with a report.
 * <p>
 * Timers are compared by what they are (name, payload, due time), never by the deadline manager's handle: a recorded
 * cancellation names a handle, which the history's own earlier schedule resolves. Thread-safe.
 */
public final class CheckoutReplayer {

    private final CheckoutDecider.Decide decide;

    public CheckoutReplayer() {
        this(CheckoutDecider::decide);
    }

    private CheckoutReplayer(CheckoutDecider.Decide decide) {
        this.decide = decide;
    }

    /**
     * A replayer for a variant of the decision function (one decision changed): how a test shows that a changed
     * decision is caught, with the report it gives.
     */
    public static CheckoutReplayer forVariant(CheckoutDecider.Decide variant) {
        return new CheckoutReplayer(variant);
    }

    /** Replays a stored or bundled history. */
    public ReplayReport replay(StoredHistories.History history) {
        return replay(history.checkoutId(), history.events());
    }

    /** Replays one checkout's history (its events in sequence order). */
    public ReplayReport replay(String checkoutId, List<HistoryEvent> history) {
        return replay(checkoutId, history, true);
    }

    /**
     * Like {@link #replay(StoredHistories.History)} for a bulk run that keeps only the reports that are not identical:
     * an identical history is reported without its timeline (describing every step costs as much as a tenth of the
     * replay); any other is replayed again, deterministically, for its full report.
     */
    public ReplayReport verdict(StoredHistories.History history) {
        ReplayReport quick = quick(history);
        return quick.identical() ? quick : replay(history.checkoutId(), history.events(), true);
    }

    /**
     * Whether a history replays identically, and nothing more: no timeline, and a report that is not identical is
     * only a verdict (for its description, {@link #replay} the history read in full).
     */
    public ReplayReport quick(StoredHistories.History history) {
        return replay(history.checkoutId(), history.events(), false);
    }

    private ReplayReport replay(String checkoutId, List<HistoryEvent> history, boolean describe) {
        List<ReplayReport.Step> timeline = new ArrayList<>();
        if (history.isEmpty()) {
            return new ReplayReport(checkoutId, 0, timeline, Verdict.NOT_REPLAYABLE, null, "no events");
        }
        // consecutive events of one input share the handled message's id; the input is on the first of them
        List<List<HistoryEvent>> inputs = new ArrayList<>();
        for (HistoryEvent event : history) {
            Object id = event.inputId();
            List<HistoryEvent> last = inputs.isEmpty() ? null : inputs.get(inputs.size() - 1);
            if (last != null && id != null && id.equals(last.get(0).inputId())) {
                last.add(event);
            } else if (event.input() == null) {
                return new ReplayReport(checkoutId, history.size(), timeline, Verdict.NOT_REPLAYABLE, null,
                        "event " + event.sequence() + " (" + event.type() + ") has no recorded input: it was "
                                + "written before inputs were recorded");
            } else {
                List<HistoryEvent> group = new ArrayList<>();
                group.add(event);
                inputs.add(group);
            }
        }

        CheckoutFacts facts = CheckoutFacts.INITIAL;
        Map<String, Map<String, Object>> scheduledByHandle = new HashMap<>();
        for (int i = 0; i < inputs.size(); i++) {
            List<HistoryEvent> recorded = inputs.get(i);
            Map<String, Object> input = recorded.get(0).input();
            List<Map<String, Object>> recordedDeadlines = deadlines(recorded.get(recorded.size() - 1));
            Decision decision = null;
            String error = null;
            try {
                decision = i == 0 ? start(input, recorded.get(0))
                        : decide.decide(input(input, recorded.get(0).inputPayload()), facts, at(input));
            } catch (RuntimeException e) {
                error = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
            Divergence divergence = compare(i + 1, input, recorded, history, decision, recordedDeadlines,
                    scheduledByHandle, error);
            if (describe) {
                timeline.add(step(i + 1, input, recorded, recordedDeadlines, divergence == null));
            }
            if (divergence != null) {
                return new ReplayReport(checkoutId, history.size(), timeline, Verdict.DIVERGED, divergence, null);
            }
            for (HistoryEvent e : recorded) {
                facts = facts.evolve((CheckoutEvent) e.payload());
            }
        }
        return new ReplayReport(checkoutId, history.size(), timeline, Verdict.IDENTICAL, null, null);
    }

    private static Decision start(Map<String, Object> input, HistoryEvent first) {
        Object command = command(input, first.inputPayload());
        if (!(command instanceof StartCheckoutCommand start)) {
            throw new IllegalStateException("the first input is " + input.get("type") + ", not a StartCheckoutCommand");
        }
        // The configuration of the day the checkout was created is an input of its first decision: it is recorded.
        if (!(first.payload() instanceof CheckoutCreatedEvent created)) {
            throw new IllegalStateException("the history starts with " + first.type());
        }
        WorkflowPolicy.of(created.policy()); // refuses rules newer than this code's
        return CheckoutDecider.start(start, created.policy()); // under the rules version it was recorded with
    }

    /** When the input was decided: the command's own time, or when the timer fired. */
    static Instant at(Map<String, Object> input) {
        return Instant.parse(String.valueOf(input.get("at")));
    }

    /** The recorded input as the decision function takes it: the command, or the fired timer's payload. */
    static Object input(Map<String, Object> input, RecordedInputs.StoredPayload stored) {
        if ("deadline".equals(input.get("kind"))) {
            Class<?> type = RecordedInputs.DEADLINE_PAYLOADS.get(String.valueOf(input.get("payloadType")));
            if (type == null) {
                throw new IllegalStateException("unknown deadline payload " + input.get("payloadType"));
            }
            Object payload = stored.as(type);
            if (payload instanceof Deadlines.LeaseExpiry due && input.get(Deadlines.INTENT_PASSED) instanceof Boolean passed) {
                return new Deadlines.ObservedLeaseExpiry(due.step(), due.fencingToken(), passed); // observed, recorded
            }
            return payload;
        }
        return command(input, stored);
    }

    static CheckoutCommand command(Map<String, Object> input, RecordedInputs.StoredPayload stored) {
        Class<?> type = RecordedInputs.COMMANDS.get(String.valueOf(input.get("type")));
        if (type == null || !"command".equals(input.get("kind"))) {
            throw new IllegalStateException("unknown input " + input.get("kind") + " " + input.get("type"));
        }
        return (CheckoutCommand) stored.as(type);
    }

    private static Divergence compare(int number, Map<String, Object> input, List<HistoryEvent> recorded,
                                      List<HistoryEvent> history, Decision decision,
                                      List<Map<String, Object>> recordedDeadlines,
                                      Map<String, Map<String, Object>> scheduledByHandle, String error) {
        long first = recorded.get(0).sequence();
        if (error != null) {
            return new Divergence(first, number, input, "error", describe(recorded.get(0).payload()), error,
                    List.of("today's code rejects this input: " + error), after(history, first - 1),
                    List.of());
        }
        List<CheckoutEvent> produced = decision.events();
        int n = Math.max(recorded.size(), produced.size());
        for (int k = 0; k < n; k++) {
            Object r = k < recorded.size() ? recorded.get(k).payload() : null;
            Object p = k < produced.size() ? produced.get(k) : null;
            if (!Objects.equals(r, p)) {
                long position = first + k;
                JsonNode rn = r == null ? null : tree(r);
                JsonNode pn = p == null ? null : tree(p);
                List<String> differences = new ArrayList<>();
                if (r == null) {
                    differences.add("(no event recorded here) -> " + p.getClass().getSimpleName());
                } else if (p == null) {
                    differences.add(r.getClass().getSimpleName() + " -> (no event produced)");
                } else if (r.getClass() != p.getClass()) {
                    differences.add("type: " + r.getClass().getSimpleName() + " -> " + p.getClass().getSimpleName());
                } else {
                    differences.addAll(JsonDiff.diff(rn, pn));
                }
                List<String> producedAfter = new ArrayList<>();
                for (int j = k + 1; j < produced.size(); j++) {
                    producedAfter.add(produced.get(j).getClass().getSimpleName());
                }
                return new Divergence(position, number, input, "event", describe(r), describe(p), differences,
                        after(history, position), producedAfter);
            }
        }
        List<Map<String, Object>> expected = timers(recordedDeadlines, scheduledByHandle);
        List<Map<String, Object>> decided = timers(decision);
        if (!JsonDiff.sameValues(expected, decided)) {
            JsonNode rd = PlainShapes.tree(expected);
            JsonNode pd = PlainShapes.tree(decided);
            long last = recorded.get(recorded.size() - 1).sequence();
            return new Divergence(last, number, input, "deadlines", rd.toString(), pd.toString(),
                    JsonDiff.diff(rd, pd), after(history, last), List.of());
        }
        return null;
    }

    /**
     * The recorded deadline operations as timers: a schedule without its handle, a cancellation as the timer its
     * handle was given to (scheduled earlier in the same history; {@code scheduledByHandle} collects them).
     */
    private static List<Map<String, Object>> timers(List<Map<String, Object>> recorded,
                                                    Map<String, Map<String, Object>> scheduledByHandle) {
        List<Map<String, Object>> timers = new ArrayList<>();
        for (Map<String, Object> op : recorded) {
            String handle = String.valueOf(op.get("id"));
            if ("schedule".equals(op.get("op"))) {
                scheduledByHandle.put(handle, op);
                timers.add(timer("schedule", op));
            } else {
                Map<String, Object> scheduled = scheduledByHandle.get(handle);
                timers.add(scheduled == null ? op : timer("cancel", scheduled));
            }
        }
        return timers;
    }

    /** The decision's timers in the order the shell hands them on: cancellations first, then schedules. */
    private static List<Map<String, Object>> timers(Decision decision) {
        List<Map<String, Object>> timers = new ArrayList<>();
        decision.cancel().forEach(t -> timers.add(timer("cancel", RecordedInputs.scheduleOp(null, t.due(), t.name(),
                t.payload()))));
        decision.schedule().forEach(t -> timers.add(timer("schedule", RecordedInputs.scheduleOp(null, t.due(),
                t.name(), t.payload()))));
        return timers;
    }

    private static Map<String, Object> timer(String op, Map<String, Object> schedule) {
        Map<String, Object> timer = new LinkedHashMap<>(schedule);
        timer.put("op", op);
        timer.remove("id");
        return timer;
    }

    private static List<String> after(List<HistoryEvent> history, long position) {
        List<String> types = new ArrayList<>();
        for (HistoryEvent e : history) {
            if (e.sequence() > position) {
                types.add(e.type());
            }
        }
        return types;
    }

    private static ReplayReport.Step step(int number, Map<String, Object> input, List<HistoryEvent> recorded,
                                          List<Map<String, Object>> deadlines, boolean identical) {
        List<String> events = recorded.stream().map(e -> e.sequence() + " " + e.type()).toList();
        List<String> ops = deadlines.stream().map(CheckoutReplayer::describeDeadline).toList();
        return new ReplayReport.Step(number, recorded.get(0).sequence(), recorded.get(recorded.size() - 1).sequence(),
                describeInput(input), events, ops, identical);
    }

    static String describeInput(Map<String, Object> input) {
        StringBuilder s = new StringBuilder().append(input.get("kind")).append(' ').append(input.get("type"));
        if (input.get("payload") instanceof Map<?, ?> payload) {
            if (payload.get("result") instanceof Map<?, ?> result && result.get("@type") != null) {
                String type = String.valueOf(result.get("@type"));
                s.append('(').append(type.substring(type.lastIndexOf('.') + 1)).append(')');
            } else if (input.get("payloadType") != null) {
                s.append('(').append(input.get("payloadType")).append(' ').append(PlainShapes.tree(payload)).append(')');
            }
        }
        s.append(" at ").append(input.get("at"));
        if (input.get("actor") != null) {
            s.append(" by ").append(input.get("actor"));
        }
        if (input.get("reason") != null) {
            s.append(" (").append(input.get("reason")).append(')');
        }
        return s.toString();
    }

    static String describeDeadline(Map<String, Object> op) {
        return "schedule".equals(op.get("op"))
                ? "schedule " + op.get("name") + " " + PlainShapes.tree(op.get("payload")) + " due " + op.get("due")
                : "cancel " + op.get("name");
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> deadlines(HistoryEvent last) {
        Object ops = last.metaData().get(RecordedInputs.DEADLINES);
        return ops instanceof List<?> list ? (List<Map<String, Object>>) list : List.of();
    }

    private static JsonNode tree(Object value) {
        return PlainShapes.tree(value); // the printed dialect: the differences read as the API shows the events
    }

    private static String describe(Object value) {
        if (value == null) {
            return "(none)";
        }
        try {
            return value.getClass().getSimpleName() + " " + PlainShapes.json(value);
        } catch (IllegalArgumentException e) {
            return value.toString();
        }
    }
}
