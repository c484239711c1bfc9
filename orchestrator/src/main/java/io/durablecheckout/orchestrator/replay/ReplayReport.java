package io.durablecheckout.orchestrator.replay;

import io.durablecheckout.orchestrator.serialization.PlainShapes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a replay found for one checkout: each recorded input with the decisions it caused, and a verdict. On a
 * divergence, where (the first differing position and the input fed there), what differs (recorded vs produced,
 * field by field) and what follows from it.
 */
public record ReplayReport(String checkoutId, int events, List<Step> timeline, Verdict verdict,
                           Divergence divergence, String problem) {

    public enum Verdict { IDENTICAL, DIVERGED, NOT_REPLAYABLE }

    /**
     * One recorded input and the recorded events (sequence numbers {@code from}..{@code to}) it caused.
     *
     * @param identical whether today's code produced the same events and deadlines
     */
    public record Step(int number, long from, long to, String input, List<String> events, List<String> deadlines,
                       boolean identical) {
    }

    /**
     * @param position       the sequence number of the first recorded event that differs (or where a missing or
     *                       extra event would be)
     * @param inputNumber    which recorded input (1-based) was being replayed
     * @param input          that input, as recorded
     * @param what           "event" or "deadlines" or "error"
     * @param recorded       the recorded event or deadlines at that position (JSON)
     * @param produced       what today's code produced there (JSON, or the error)
     * @param differences    field by field: {@code path: recorded -> produced}
     * @param recordedAfter  the recorded events after the position (types), which today's code may not reach
     * @param producedAfter  what today's code produced after the position for this input (types)
     */
    public record Divergence(long position, int inputNumber, Map<String, Object> input, String what, String recorded,
                             String produced, List<String> differences, List<String> recordedAfter,
                             List<String> producedAfter) {
    }

    public boolean identical() {
        return verdict == Verdict.IDENTICAL;
    }

    /** The report as text: the timeline, then the verdict and any divergence. */
    public String render() {
        StringBuilder out = new StringBuilder();
        out.append("checkout ").append(checkoutId).append(": ").append(events).append(" events, ")
                .append(timeline.size()).append(" recorded inputs\n");
        for (Step step : timeline) {
            out.append(String.format("  %s #%-3d seq %d..%d  %s%n", step.identical() ? "ok" : "!!", step.number(),
                    step.from(), step.to(), step.input()));
            for (String e : step.events()) {
                out.append("           -> ").append(e).append('\n');
            }
            for (String d : step.deadlines()) {
                out.append("           ~> ").append(d).append('\n');
            }
        }
        out.append("verdict: ").append(verdict).append('\n');
        if (problem != null) {
            out.append("  ").append(problem).append('\n');
        }
        if (divergence != null) {
            Divergence d = divergence;
            out.append("  first difference at position ").append(d.position()).append(" (sequence number), input #")
                    .append(d.inputNumber()).append(": ").append(d.input().get("kind")).append(' ')
                    .append(d.input().get("type")).append(" at ").append(d.input().get("at")).append('\n');
            out.append("  input payload: ").append(PlainShapes.tree(d.input().get("payload"))).append('\n');
            out.append("  ").append(d.what()).append(" recorded: ").append(d.recorded()).append('\n');
            out.append("  ").append(d.what()).append(" produced: ").append(d.produced()).append('\n');
            if (!d.differences().isEmpty()) {
                out.append("  differences (recorded -> produced):\n");
                for (String line : d.differences()) {
                    out.append("    ").append(line).append('\n');
                }
            }
            out.append("  what follows: ").append(consequence()).append('\n');
        }
        return out.toString();
    }

    /** What the divergence means for the rest of this history. */
    public String consequence() {
        if (divergence == null) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        if (!divergence.recordedAfter().isEmpty()) {
            parts.add("the recorded history continues with " + divergence.recordedAfter().size() + " more event(s) "
                    + abbreviate(divergence.recordedAfter()) + " that followed from the recorded decision");
        } else {
            parts.add("nothing was recorded after it");
        }
        if (!divergence.producedAfter().isEmpty()) {
            parts.add("today's code would go on with " + abbreviate(divergence.producedAfter()));
        }
        parts.add("a checkout in flight at this point would now decide differently: an accident to fix, or an "
                + "intended change to version (keep the old rule for recorded policies; docs/replay.md)");
        return String.join("; ", parts);
    }

    private static String abbreviate(List<String> types) {
        return types.size() <= 8 ? types.toString()
                : types.subList(0, 8) + " and " + (types.size() - 8) + " more";
    }
}
