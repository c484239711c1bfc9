package io.durablecheckout.orchestrator.dashboard;

import io.durablecheckout.api.checkout.CheckoutCancellationRequestedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentDeclinedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.CheckoutFacts;
import io.durablecheckout.orchestrator.checkout.Deadlines;
import io.durablecheckout.orchestrator.checkout.Workflow;
import io.durablecheckout.orchestrator.readmodel.CheckoutView;
import io.durablecheckout.orchestrator.readmodel.CheckoutViewFolder;
import io.durablecheckout.orchestrator.tenancy.Caller;
import io.durablecheckout.orchestrator.service.CheckoutService;
import org.axonframework.eventhandling.DomainEventMessage;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Everything the one-checkout page shows, gathered from the event store, the read model and the services' tables. */
@Component
public class CheckoutInspector {

    private static final List<String> DEADLINE_NAMES = List.of(Deadlines.LEASE_EXPIRED, Deadlines.RETRY_DUE,
            Deadlines.RECONCILIATION_DUE);

    private final CheckoutService checkouts;
    private final JdbcTemplate jdbc;
    private final ProviderLookup provider;
    private final Clock clock;

    public CheckoutInspector(CheckoutService checkouts, JdbcTemplate jdbc, ProviderLookup provider,
                             Clock clock) {
        this.checkouts = checkouts;
        this.jdbc = jdbc;
        this.provider = provider;
        this.clock = clock;
    }

    /** One event of the timeline, with the checkout's state right after it (the read model's fold, replayed). */
    public record TimelineEntry(long sequence, String type, String timestamp, String stateAfter, Object payload,
                                Map<String, Object> metadata, String who, String why) {
    }

    public Optional<Map<String, Object>> inspect(Caller operator, String checkoutId) {
        Optional<CheckoutView> view = checkouts.find(operator, checkoutId);
        if (view.isEmpty()) {
            return Optional.empty();
        }
        List<TimelineEntry> timeline = new ArrayList<>();
        List<Map<String, Object>> lookups = new ArrayList<>();
        CheckoutView folded = null;
        CheckoutFacts facts = CheckoutFacts.INITIAL; // the aggregate's own fold: what the rules allow next
        Presentation.Attribution cancelledBy = null;
        for (DomainEventMessage<?> m : checkouts.history(operator, checkoutId)) {
            Object payload = m.getPayload();
            if (payload instanceof CheckoutEvent e) {
                folded = CheckoutViewFolder.fold(folded, e, m.getSequenceNumber(), m.getTimestamp());
                facts = facts.evolve(e);
            }
            Presentation.Attribution by = Presentation.attribution(m.getMetaData());
            if (payload instanceof CheckoutCancellationRequestedEvent) {
                cancelledBy = by;
            }
            timeline.add(new TimelineEntry(m.getSequenceNumber(), m.getPayloadType().getSimpleName(),
                    m.getTimestamp().toString(), folded == null ? null : folded.state,
                    checkouts.revealedPayload(checkoutId, payload), // personal data opened, or [erased]
                    Map.copyOf(m.getMetaData()), by == null ? null : by.who(), by == null ? null : by.why()));
            if (payload instanceof PaymentReconciliationRequestedEvent r) {
                Map<String, Object> l = new LinkedHashMap<>();
                l.put("lookup", r.lookupNumber());
                l.put("issuedAt", m.getTimestamp().toString());
                l.put("operationId", r.lease().operationId().value());
                l.put("about", r.authorizationOperationId().value());
                l.put("fencingToken", r.lease().fencingToken().value());
                lookups.add(l);
            } else if (!lookups.isEmpty() && !lookups.get(lookups.size() - 1).containsKey("answer")) {
                // what the last lookup's answer led to: another round, a decision, or an operator
                Map<String, Object> last = lookups.get(lookups.size() - 1);
                if (payload instanceof PaymentReconciliationScheduledEvent s) {
                    last.put("answer", s.lastAnswer());
                } else if (payload instanceof PaymentAuthorizedEvent) {
                    last.put("answer", "AUTHORIZED");
                } else if (payload instanceof PaymentDeclinedEvent d) {
                    last.put("answer", "DECLINED: " + d.reason());
                } else if (payload instanceof ManualReviewRequiredEvent r) {
                    last.put("answer", "inconclusive; " + r.reason());
                }
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("view", view.get());
        out.put("activities", Presentation.activityRows(view.get()));
        out.put("cancellation", Presentation.cancellation(view.get(), cancelledBy));
        out.put("actions", facts.state() == null ? List.of()
                : Workflow.operatorActions(facts).stream().map(CheckoutInspector::action).toList());
        out.put("timeline", timeline);
        out.put("lookups", lookups);
        out.put("deadlines", deadlines(checkoutId));
        out.put("paymentOperations", jdbc.queryForList("SELECT operation_id, kind, status, fencing_token, attempts, "
                + "provider_reference, detail, updated_at FROM payment_operations WHERE checkout_id = ? "
                + "ORDER BY created_at", checkoutId));
        out.put("providerNotifications", jdbc.queryForList("SELECT notification_id, status, provider_reference, "
                + "deliveries, last_received_at FROM provider_notifications WHERE checkout_id = ?", checkoutId));
        return Optional.of(out);
    }

    /** An action the repair panel offers: the value it sends and its label. */
    private static Map<String, String> action(Workflow.OperatorAction a) {
        return switch (a) {
            case RESOLVE_AUTHORIZED -> Map.of("value", "resolve-authorized", "label",
                    "resolve: payment authorized (needs the provider's reference)");
            case RESOLVE_DECLINED -> Map.of("value", "resolve-declined", "label", "resolve: payment declined");
            case RETRY -> Map.of("value", "retry", "label", "retry now");
            case REFUND -> Map.of("value", "refund", "label", "refund part of the captured money (amount)");
            case CAPTURE_HOLD -> Map.of("value", "capture-hold", "label", "capture the hold (completed before capture "
                    + "was a step)");
            case RELEASE_HOLD -> Map.of("value", "release-hold", "label", "release (void) the hold (completed before "
                    + "capture was a step)");
            case CANCEL -> Map.of("value", "cancel", "label", "cancel (compensates what was done)");
        };
    }

    /**
     * The deadlines db-scheduler holds for this checkout (the scope in each task's data names the aggregate). The
     * table holds only what is pending, so the scan stays small.
     */
    List<Map<String, Object>> deadlines(String checkoutId) {
        List<Map<String, Object>> rows = jdbc.queryForList("SELECT task_name, task_instance, execution_time, picked, "
                + "picked_by, consecutive_failures, last_failure, task_data FROM scheduled_tasks "
                + "WHERE position(convert_to(?, 'UTF8') IN task_data) > 0 ORDER BY execution_time", checkoutId);
        for (Map<String, Object> row : rows) {
            byte[] data = (byte[]) row.remove("task_data");
            String text = data == null ? "" : new String(data, StandardCharsets.ISO_8859_1);
            row.put("deadline", DEADLINE_NAMES.stream().filter(text::contains).findFirst().orElse(null));
        }
        return rows;
    }

    /**
     * The provider's own answer about this checkout's authorization (a lookup under the original operation id, as
     * reconciliation asks it), beside what the checkout has recorded, with a mismatch flagged.
     */
    public Map<String, Object> providerView(CheckoutView view) {
        Map<String, Object> out = new LinkedHashMap<>();
        String operationId = view.checkoutId + "/" + Step.AUTHORIZE_PAYMENT.slug();
        out.put("operationId", operationId);
        String recorded = recordedOutcome(view);
        String undone = Presentation.recordedPayment(view);
        out.put("checkoutSays", undone == null ? recorded : undone);
        out.put("authorization", recorded);
        out.put("checkoutReference", view.providerReference);
        if (!provider.available()) {
            out.put("providerSays", null);
            out.put("detail", "no payment provider client in this process (checkout.activities.enabled=false)");
            out.put("mismatch", false);
            return out;
        }
        if (!view.activities.containsKey(Step.AUTHORIZE_PAYMENT.slug())) {
            out.put("providerSays", "NOT_ASKED");
            out.put("detail", "no authorization was requested yet");
            out.put("mismatch", false);
            return out;
        }
        // an operator's read, named as such in the provider's request log (not one of the workflow's lookups)
        ProviderLookup.Answer answer = provider.lookup(new OperationId(operationId),
                new OperationId(view.checkoutId + "/operator-lookup"));
        String says = answer.outcome() == null ? null : answer.outcome().name();
        out.put("providerSays", says);
        out.put("providerReference", answer.reference());
        out.put("detail", answer.detail());
        out.put("askedAt", clock.instant().toString());
        // Flagged: an authorization the provider does not confirm, a decline the provider authorized, or two references.
        boolean mismatch = ("AUTHORIZED".equals(recorded) && says != null && !"AUTHORIZED".equals(says)
                && !"LOOKUP_FAILED".equals(says))
                || ("DECLINED".equals(recorded) && "AUTHORIZED".equals(says))
                || ("AUTHORIZED".equals(says) && "AUTHORIZED".equals(recorded) && view.providerReference != null
                && answer.reference() != null && !view.providerReference.equals(answer.reference()));
        // a voided or refunded payment was (or may have been) authorized first: the provider saying so agrees
        mismatch = mismatch && !(undone != null && "AUTHORIZED".equals(says));
        out.put("mismatch", mismatch);
        out.put("agreement", mismatch ? "MISMATCH: the two disagree"
                : "REFUNDED".equals(undone) ? "consistent: authorized, then refunded (the provider answers about the "
                + "authorization; the refund is recorded by the payment service)"
                : "VOIDED".equals(undone) ? "consistent: the authorization, if any, was voided"
                : "no contradiction");
        return out;
    }

    /** AUTHORIZED, DECLINED or UNKNOWN, as the checkout has it. */
    static String recordedOutcome(CheckoutView view) {
        CheckoutView.Activity a = view.activities.get(Step.AUTHORIZE_PAYMENT.slug());
        if (a == null) {
            return "NOT_REQUESTED";
        }
        if ("succeeded".equals(a.status)) {
            return "AUTHORIZED";
        }
        if ("declined".equals(a.status)) {
            return "DECLINED";
        }
        return "UNKNOWN";
    }
}
