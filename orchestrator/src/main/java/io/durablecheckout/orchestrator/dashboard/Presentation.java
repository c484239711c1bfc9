package io.durablecheckout.orchestrator.dashboard;

import io.durablecheckout.api.command.RecordProviderNotificationCommand;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.OperatorMetadata;
import io.durablecheckout.orchestrator.checkout.Workflow;
import io.durablecheckout.orchestrator.readmodel.CheckoutView;
import io.durablecheckout.orchestrator.replay.RecordedInputs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** How the dashboard words what the read model and the history hold: durations, who did what, the activity rows. */
final class Presentation {

    private static final Set<String> COMPENSATING = Set.of("payment_declined", "void_pending", "refund_requested",
            "refund_confirmed", "stock_release_pending", "cancellation_notice_pending");

    /** The commands a person sends: their events carry that person's name and reason. */
    private static final Set<String> PEOPLES_COMMANDS = Set.of(RequestCancellationCommand.class.getSimpleName(),
            ResolveManualReviewCommand.class.getSimpleName(), RetryActivityCommand.class.getSimpleName(),
            StartCheckoutCommand.class.getSimpleName());

    private Presentation() {
    }

    /** "2 s", "1 min 15 s", "3 h 5 min", "2 d 4 h": never ISO-8601's PT1M15S. */
    static String human(Duration d) {
        if (d == null) {
            return null;
        }
        long s = Math.max(0, d.toSeconds());
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return s / 60 + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
        }
        if (s < 86400) {
            return s / 3600 + " h" + (s % 3600 / 60 == 0 ? "" : " " + s % 3600 / 60 + " min");
        }
        return s / 86400 + " d" + (s % 86400 / 3600 == 0 ? "" : " " + s % 86400 / 3600 + " h");
    }

    static Map<String, String> human(Map<String, Duration> thresholds) {
        Map<String, String> out = new LinkedHashMap<>();
        thresholds.forEach((state, d) -> out.put(state, human(d)));
        return out;
    }

    /**
     * Who caused an event and why: the operator or customer for the events of their own command only (their metadata
     * is carried on by the deadlines that follow, whose events are the workflow's), the provider for a notification.
     * {@code null} for the workflow's own steps.
     */
    record Attribution(String who, String why) {
    }

    @SuppressWarnings("unchecked")
    static Attribution attribution(Map<String, ?> metadata) {
        if (!(metadata.get(RecordedInputs.INPUT) instanceof Map<?, ?> in) || !"command".equals(in.get("kind"))) {
            // a deadline (lease expiry, retry, lookup) or a batch of workers' results: the workflow, not a person
            return null;
        }
        if (RecordProviderNotificationCommand.class.getSimpleName().equals(in.get("type"))) {
            Map<String, Object> payload = in.get("payload") instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
            return new Attribution("provider (notification " + payload.get("notificationId") + ")",
                    "the provider notified " + payload.get("outcome") + (payload.get("providerReference") == null ? ""
                            : ", reference " + payload.get("providerReference")));
        }
        if (!PEOPLES_COMMANDS.contains(String.valueOf(in.get("type")))) {
            return null; // a worker's result or heartbeat (the actor's metadata travels on through the saga)
        }
        Object actor = metadata.get(OperatorMetadata.ACTOR);
        return actor == null ? null : new Attribution(actor.toString(),
                metadata.get(OperatorMetadata.REASON) == null ? null : metadata.get(OperatorMetadata.REASON).toString());
    }

    /** The activities in workflow order; a lease expiry only where a lease is live (the step in flight). */
    static List<Map<String, Object>> activityRows(CheckoutView view) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Step step : Workflow.stepsInOrder()) {
            CheckoutView.Activity a = view.activities.get(step.slug());
            if (a == null) {
                continue;
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("step", step.slug());
            row.put("operationId", a.operationId);
            row.put("attempt", a.attempt);
            row.put("fencingToken", a.fencingToken);
            row.put("leaseExpiresAt", "in_flight".equals(a.status) && !view.terminal ? a.leaseExpiresAt : null);
            row.put("status", a.status);
            row.put("lastOutcome", a.lastOutcome);
            row.put("retryAt", "retry_scheduled".equals(a.status) ? a.retryAt : null);
            rows.add(row);
        }
        return rows;
    }

    /** A requested cancellation: who asked, why, and whether it is still pending and on what. */
    static Map<String, Object> cancellation(CheckoutView view, Attribution requestedBy) {
        if (!view.cancellationRequested) {
            return null;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("reason", view.cancelReason);
        out.put("detail", view.cancelDetail);
        out.put("requestedBy", requestedBy == null ? null : requestedBy.who());
        boolean pending = !"cancelled".equals(view.state) && !COMPENSATING.contains(view.state);
        out.put("pending", pending);
        String status;
        if ("cancelled".equals(view.state)) {
            status = "done: cancelled";
        } else if (!pending) {
            status = "being carried out: compensating";
        } else if ("manual_review".equals(view.state)) {
            status = "pending: nothing is undone until an operator acts; an operator's cancel compensates now";
        } else if ("completed".equals(view.state)) {
            status = "pending: the refund starts";
        } else {
            status = "pending: the step in flight concludes first, then the checkout is compensated";
        }
        out.put("status", status);
        return out;
    }

    /** What the checkout has recorded about its payment: the authorization's outcome, then any void or refund. */
    static String recordedPayment(CheckoutView view) {
        CheckoutView.Activity refund = view.activities.get(Step.REFUND_PAYMENT.slug());
        CheckoutView.Activity voided = view.activities.get(Step.VOID_PAYMENT.slug());
        if (refund != null && "succeeded".equals(refund.status)) {
            return "REFUNDED";
        }
        if (voided != null && "succeeded".equals(voided.status)) {
            return "VOIDED";
        }
        return null;
    }
}
