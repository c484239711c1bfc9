package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Workflow.Compensation;
import io.durablecheckout.orchestrator.checkout.Workflow.Facts;
import io.durablecheckout.orchestrator.checkout.Workflow.Result;
import io.durablecheckout.orchestrator.checkout.Workflow.Row;
import io.durablecheckout.orchestrator.checkout.Workflow.Then;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Renders the {@link Workflow} table as the Mermaid state diagram of {@code docs/workflow.md}, so the picture cannot
 * drift from the code: a unit test compares the two ({@code WorkflowDocumentationTest}). Each arrow says which
 * step's result (or which operator action or cancellation) moves the checkout, and the events that follow it.
 */
final class WorkflowDiagram {

    private final Set<String> lines = new LinkedHashSet<>();

    private WorkflowDiagram() {
    }

    /** The diagram, as it stands between the markers in docs/workflow.md. */
    static String mermaid() {
        WorkflowDiagram d = new WorkflowDiagram();
        Row first = Workflow.STEPS.get(0);
        d.arrow("[*]", first.pendingState(), "CheckoutCreatedEvent + " + first.request().getSimpleName());
        List<Row> rows = new ArrayList<>(Workflow.STEPS);
        rows.addAll(Workflow.COMPENSATION_STEPS);
        for (Row row : rows) {
            for (Result result : Result.values()) {
                Then then = row.after(result, false);
                if (then != null) {
                    d.follow(row, then, row.step().slug() + " " + name(result), facts(row, result, false), List.of());
                }
            }
            if (row.cancelling() != null) {
                d.follow(row, row.cancelling(), row.step().slug() + " succeeded, cancellation requested",
                        facts(row, Result.SUCCEEDED, true), List.of());
            }
        }
        for (Row row : rows) {
            d.arrow(row.pendingState(), CheckoutState.MANUAL_REVIEW,
                    row.step().slug() + " attempts used up / ManualReviewRequiredEvent");
            String retried = row.step() == Step.RECONCILE_PAYMENT ? "PaymentReconciliationScheduledEvent"
                    : row.request().getSimpleName();
            d.arrow(CheckoutState.MANUAL_REVIEW, row.pendingState(),
                    "operator retry of " + row.step().slug() + " / OperatorRetryRequestedEvent + " + retried);
        }
        d.arrow(CheckoutState.AWAITING_CAPTURE, CheckoutState.CAPTURE_PENDING,
                "the tenant's capture call / PaymentCaptureRequestedEvent");
        d.arrow(CheckoutState.CUSTOMER_ACTION_REQUIRED, CheckoutState.CAPTURE_PENDING, "provider notification: "
                + "authorized, on_confirmation / PaymentAuthorizedEvent + CheckoutConfirmedEvent + PaymentCaptureRequestedEvent");
        d.arrow(CheckoutState.CUSTOMER_ACTION_REQUIRED, CheckoutState.STOCK_RELEASE_PENDING, "provider notification: "
                + "declined / PaymentDeclinedEvent + StockReleaseRequestedEvent");
        d.arrow(CheckoutState.CUSTOMER_ACTION_REQUIRED, CheckoutState.VOID_PENDING, "customer action timed out / "
                + "CheckoutCancellationRequestedEvent + PaymentVoidRequestedEvent");
        Workflow.COMPENSATE_ON_CANCEL.entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
                .forEach(e -> d.cancellation(e.getKey(), e.getValue()));
        d.arrow(CheckoutState.COMPLETED, "[*]", null);
        d.arrow(CheckoutState.CANCELLED, "[*]", null);
        return "stateDiagram-v2\n" + String.join("\n", d.lines) + "\n";
    }

    /** The table itself, as the Markdown tables of docs/workflow.md: the steps, then the compensations. */
    static String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("| Step | Request (intent) | Pending state | Reported done by | Recorded as | Succeeded | Failed |"
                + " Unknown | Not found | Needs the customer | Succeeded after a cancellation request |\n"
                + "|---|---|---|---|---|---|---|---|---|---|---|\n");
        List<Row> rows = new ArrayList<>(Workflow.STEPS);
        rows.addAll(Workflow.COMPENSATION_STEPS);
        for (Row row : rows) {
            sb.append("| `").append(row.step().slug()).append("`")
                    .append(row.step().isCompensation() ? " (compensation)" : "")
                    .append(" | `").append(row.request().getSimpleName()).append("` | `")
                    .append(row.pendingState().wireName()).append("` | ")
                    .append(row.report() == null ? "read by a rule of its own (`Results`)"
                            : "`" + row.report().result().getSimpleName() + "`").append(" | ")
                    .append(row.report() == null ? "—" : "`" + row.report().fact().getSimpleName() + "`"
                            + (row.report().stateAfter() == null ? "" : " → `" + row.report().stateAfter().wireName() + "`"))
                    .append(" |");
            for (Result result : Result.values()) {
                sb.append(' ').append(words(row.after(result, false))).append(" |");
            }
            sb.append(' ').append(row.cancelling() == null ? "—" : words(row.cancelling())).append(" |\n");
        }
        sb.append("\n| Compensation, in order | Undoes | Owed when |\n|---|---|---|\n");
        for (Compensation c : Workflow.COMPENSATIONS) {
            sb.append("| `").append(c.step().slug()).append("` | `").append(c.undoes().slug()).append("` | ")
                    .append(c.owedWhen()).append(" |\n");
        }
        sb.append("\n| Rule (every step) | What it says |\n|---|---|\n");
        for (Workflow.Policy p : Workflow.POLICIES) {
            sb.append("| ").append(p.name()).append(" | ").append(p.rule()).append(" |\n");
        }
        return sb.toString();
    }

    private static String words(Then then) {
        if (then == null) {
            return "—";
        }
        String now = switch (then.move()) {
            case ISSUE -> "`" + then.step().slug() + "`";
            case CONFIRM -> "confirm the order";
            case COMPLETE -> "`completed`";
            case COMPENSATE -> "compensate (next owed)";
            case CANCEL -> "`cancelled` (the result's reason)";
            case RECONCILE -> "reconcile (a lookup under the original operation id)";
            case LOOK_AGAIN -> "another lookup, or manual review once the lookups are used up";
            case CONTINUE -> "the next in the capture mode's order (`on_confirmation`: capture, receipt; `deferred`: "
                    + "receipt, `awaiting_capture`, capture), `completed` after the last";
            case RETRY -> "ask again under the same operation id after a back-off (attempt budget)";
            case AWAIT_CUSTOMER -> "`customer_action_required` until the provider's notification or the timeout";
            case NONE -> "";
        };
        boolean more = then.next() != null && then.next().move() != Workflow.Move.NONE;
        return more ? now + ", then " + words(then.next()) : now;
    }

    /** The arrows of one follow-up, move by move; {@code events} are those appended before it. */
    private void follow(Row row, Then then, String why, List<Facts> facts, List<String> events) {
        List<String> next = new ArrayList<>(events);
        CheckoutState to = null;
        switch (then.move()) {
            case ISSUE -> to = append(next, Workflow.row(then.step()).request().getSimpleName(),
                    Workflow.pendingState(then.step()));
            case CONFIRM -> to = append(next, "CheckoutConfirmedEvent", CheckoutState.CONFIRMED);
            case COMPLETE -> to = append(next, "CheckoutCompletedEvent", CheckoutState.COMPLETED);
            case CANCEL -> to = append(next, "CheckoutCancelledEvent", CheckoutState.CANCELLED);
            case RECONCILE -> to = append(next, "PaymentReconciliationScheduledEvent", CheckoutState.RECONCILIATION_PENDING);
            case LOOK_AGAIN -> {
                arrow(row.pendingState(), CheckoutState.RECONCILIATION_PENDING,
                        why + ", lookups left / " + join(next, "PaymentReconciliationScheduledEvent"));
                arrow(row.pendingState(), CheckoutState.MANUAL_REVIEW,
                        why + ", lookups used up / " + join(next, "ManualReviewRequiredEvent"));
                return;
            }
            case COMPENSATE -> {
                compensate(row.pendingState(), row.step(), why, facts, next);
                return;
            }
            case CONTINUE -> {
                for (io.durablecheckout.api.values.CaptureMode mode : io.durablecheckout.api.values.CaptureMode.values()) {
                    List<Step> order = Workflow.afterConfirmation(mode, WorkflowPolicy.RULES_VERSION);
                    int i = order.indexOf(row.step()) + 1;
                    String label = why + ", " + mode.wireName() + " / ";
                    if (i >= order.size()) {
                        arrow(row.pendingState(), CheckoutState.COMPLETED, label + join(next, "CheckoutCompletedEvent"));
                    } else if (order.get(i) == Step.CAPTURE_PAYMENT
                            && mode == io.durablecheckout.api.values.CaptureMode.DEFERRED) {
                        arrow(row.pendingState(), CheckoutState.AWAITING_CAPTURE, label + join(next, "CaptureAwaitedEvent"));
                    } else {
                        arrow(row.pendingState(), Workflow.pendingState(order.get(i)),
                                label + join(next, Workflow.row(order.get(i)).request().getSimpleName()));
                    }
                }
                return;
            }
            case AWAIT_CUSTOMER -> {
                arrow(row.pendingState(), CheckoutState.CUSTOMER_ACTION_REQUIRED,
                        why + " / " + join(next, "CustomerActionRequiredEvent"));
                return;
            }
            case RETRY -> {
                arrow(row.pendingState(), row.pendingState(),
                        why + " / " + join(next, "ActivityRetryScheduledEvent"));
                return;
            }
            case NONE -> {
            }
        }
        if (then.next() != null && then.next().move() != Workflow.Move.NONE) {
            follow(row, then.next(), why, facts, next);
        } else if (to != null) {
            arrow(row.pendingState(), to, why + " / " + String.join(" + ", next));
        }
    }

    /** One arrow per compensation that can come next from {@code from}, each with the condition that owes it. */
    private void compensate(CheckoutState from, Step concluded, String why, List<Facts> facts, List<String> events) {
        Set<Step> seen = new LinkedHashSet<>();
        for (Facts f : facts) {
            seen.add(Workflow.nextCompensation(concluded, f));
        }
        for (Step next : seen) {
            String condition = seen.size() == 1 ? "" : next == null ? ", nothing left to undo"
                    : ", " + Workflow.COMPENSATIONS.stream().filter(c -> c.step() == next).findFirst()
                            .map(Compensation::owedWhen).orElseThrow();
            if (next == null) {
                arrow(from, CheckoutState.CANCELLED, why + condition + " / " + join(events, "CheckoutCancelledEvent"));
            } else {
                arrow(from, Workflow.pendingState(next), why + condition + " / "
                        + join(events, Workflow.row(next).request().getSimpleName()));
            }
        }
    }

    private void cancellation(CheckoutState state, String when) {
        Set<Step> requested = EnumSet.of(Step.RESERVE_STOCK, Step.AUTHORIZE_PAYMENT);
        List<Facts> facts = switch (state) {
            case COMPLETED -> List.of(new Facts(EnumSet.allOf(Step.class), false, true));
            case MANUAL_REVIEW -> List.of(new Facts(EnumSet.of(Step.RESERVE_STOCK), false, false),
                    new Facts(requested, false, false), new Facts(EnumSet.allOf(Step.class), false, true));
            default -> List.of(new Facts(requested, false, false));
        };
        compensate(state, null, "cancellation " + when, facts, List.of("CheckoutCancellationRequestedEvent"));
    }

    /**
     * The situations a result can find the checkout in, as far as compensations go: the forward steps up to this
     * one requested (every one, for a compensation), the payment declined if this result says so, and the receipt
     * sent if this is the receipt's success. A compensation can run with or without a receipt requested before.
     */
    private static List<Facts> facts(Row row, Result result, boolean cancelling) {
        if (row.step().isCompensation()) {
            Set<Step> all = EnumSet.allOf(Step.class);
            Set<Step> noReceipt = EnumSet.complementOf(EnumSet.of(Step.SEND_RECEIPT));
            return List.of(new Facts(all, false, false), new Facts(noReceipt, false, false));
        }
        Set<Step> requested = EnumSet.noneOf(Step.class);
        for (Row r : Workflow.STEPS) {
            requested.add(r.step());
            if (r == row) {
                break;
            }
        }
        boolean declined = result == Result.FAILED || result == Result.NOT_FOUND;
        boolean receiptSent = row.step() == Step.SEND_RECEIPT && result == Result.SUCCEEDED;
        return List.of(new Facts(requested, declined, receiptSent));
    }

    private void arrow(Object from, Object to, String label) {
        lines.add("    " + state(from) + " --> " + state(to) + (label == null ? "" : " : " + label));
    }

    private static String state(Object s) {
        return s instanceof CheckoutState c ? c.wireName() : s.toString();
    }

    private static String name(Result result) {
        return result.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    private static CheckoutState append(List<String> events, String event, CheckoutState to) {
        events.add(event);
        return to;
    }

    private static String join(List<String> events, String last) {
        List<String> all = new ArrayList<>(events);
        all.add(last);
        return String.join(" + ", all);
    }
}
