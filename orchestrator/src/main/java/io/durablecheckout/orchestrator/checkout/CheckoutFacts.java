package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.CaptureAwaitedEvent;
import io.durablecheckout.api.checkout.PaymentCaptureFailedEvent;
import io.durablecheckout.api.checkout.PaymentCaptureRequestedEvent;
import io.durablecheckout.api.checkout.PaymentCapturedEvent;
import io.durablecheckout.api.values.CaptureMode;
import java.time.Instant;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.CheckoutCancellationRequestedEvent;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.ManualReviewResolvedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentDeclinedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeDisputedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeUnknownEvent;
import io.durablecheckout.api.checkout.PaymentOperationOrderedEvent;
import io.durablecheckout.api.checkout.PaymentRefundRequestedEvent;
import io.durablecheckout.api.checkout.PaymentRefundedEvent;
import io.durablecheckout.api.checkout.PaymentVoidedEvent;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.checkout.ProviderNotificationHeldEvent;
import io.durablecheckout.api.checkout.ReceiptSentEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Step;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a checkout's own events say, and nothing else: the state every decision reads. Immutable; {@link #evolve}
 * gives the state after one more event. The aggregate, the replayer and the read model fold the same function (the
 * read model through {@link #stateAfter}), so they cannot disagree about where a checkout is.
 */
public final class CheckoutFacts {

    /** Before the first event. */
    public static final CheckoutFacts INITIAL = new CheckoutFacts();

    /**
     * The state a fact puts the checkout in; events not named here leave it, but for intents and steps' success facts,
     * whose states their workflow rows say.
     */
    private static final Map<Class<?>, CheckoutState> STATE_AFTER = Map.ofEntries(
            Map.entry(CheckoutCreatedEvent.class, CheckoutState.CREATED),
            Map.entry(PaymentDeclinedEvent.class, CheckoutState.PAYMENT_DECLINED),
            Map.entry(PaymentOutcomeUnknownEvent.class, CheckoutState.PAYMENT_UNKNOWN),
            Map.entry(PaymentReconciliationScheduledEvent.class, CheckoutState.RECONCILIATION_PENDING),
            Map.entry(CheckoutConfirmedEvent.class, CheckoutState.CONFIRMED),
            Map.entry(CaptureAwaitedEvent.class, CheckoutState.AWAITING_CAPTURE),
            Map.entry(io.durablecheckout.api.checkout.CustomerActionRequiredEvent.class,
                    CheckoutState.CUSTOMER_ACTION_REQUIRED),
            Map.entry(CheckoutCompletedEvent.class, CheckoutState.COMPLETED),
            Map.entry(ManualReviewRequiredEvent.class, CheckoutState.MANUAL_REVIEW),
            Map.entry(CheckoutCancelledEvent.class, CheckoutState.CANCELLED));

    private CheckoutId checkoutId;
    private Order order;
    /** Fixed when the checkout was created (recorded in its first event); never the current configuration. */
    private WorkflowPolicy policy;
    /** The version of the rules the checkout was created under (recorded in its first event). */
    private int rulesVersion;
    private CheckoutState state;
    private Map<Step, Run> runs = Map.of();
    private boolean cancelRequested;
    private CancellationReason cancelReason;
    private String cancelDetail;
    private boolean receiptSent;
    /** When the payment is captured (rules version 3 on; {@code null} before). */
    private CaptureMode capture;
    /** When the authorization's hold lapses, as recorded at confirmation (rules version 3 on). */
    private Instant holdExpiresAt;
    /** The hold's deadline is scheduled and the checkout has not ended (completed or cancelled) since. */
    private boolean holdOpen;
    private int scheduledLookup;
    /** Until when the customer may act (3-D Secure), as the provider's request was recorded; {@code null}: none. */
    private Instant customerActionUntil;
    private int lookupBudgetStart;
    private Step blockedStep;
    /** The payment outcome once known from any evidence (worker, lookup, provider notification, operator). */
    private ManualResolution paymentOutcome;
    /** A provider notification contradicted the recorded outcome and no operator has looked at it yet. */
    private boolean disputeOpen;
    /** Notifications kept as evidence while the checkout was not the provider's to settle, by notification id. */
    private Map<String, ProviderNotificationHeldEvent> heldNotifications = Map.of();
    /** The latest payment operation an operator ordered on the completed checkout ({@code null}: none). */
    private PaymentOperationOrderedEvent operatorOperation;
    /** Partial refunds operators ordered so far (each names its operation id by its number). */
    private int operatorRefunds;
    /** The amount of the latest refund requested, added to what was refunded once the provider confirms it. */
    private Money refundInFlight;
    /** An operator released (voided) the hold of a checkout completed before capture was a step. */
    private boolean holdReleased;

    private CheckoutFacts() {
    }

    /** The state {@code event} leaves a checkout in that was in {@code current}. */
    public static CheckoutState stateAfter(CheckoutState current, CheckoutEvent event) {
        if (event instanceof ActivityIntent intent) {
            // every request puts the checkout in its step's pending state, but an operator's payment operation on a
            // completed checkout (an operation id of its own), which leaves it completed
            return Workflow.isOperatorOperation(intent.checkoutId(), intent.step(), intent.lease().operationId())
                    ? current : Workflow.pendingState(intent.step());
        }
        OperationId operation = event instanceof PaymentRefundedEvent e ? e.operationId()
                : event instanceof PaymentCapturedEvent e ? e.operationId()
                : event instanceof PaymentVoidedEvent e ? e.operationId() : null;
        if (operation != null && Workflow.isOperatorOperation(event.checkoutId(), Workflow.recordedBy(event), operation)) {
            return current;
        }
        CheckoutState reported = Workflow.stateAfter(event);
        return reported != null ? reported : STATE_AFTER.getOrDefault(event.getClass(), current);
    }

    /** The facts after one more event. */
    public CheckoutFacts evolve(CheckoutEvent event) {
        CheckoutFacts next = copy();
        next.record(event);
        next.state = stateAfter(state, event);
        return next;
    }

    private void record(CheckoutEvent event) {
        runs = Run.fold(runs, event); // every step's run: the one fold of runs (Run.statusAfter)
        if (event instanceof CheckoutCreatedEvent e) {
            checkoutId = e.checkoutId();
            order = new Order(e.checkoutId(), e.tenantId(), e.items(), e.amount(), e.paymentToken(), e.customerEmail());
            policy = WorkflowPolicy.of(e.policy());
            rulesVersion = e.policy().version();
            capture = e.policy().capture();
        } else if (event instanceof CheckoutConfirmedEvent e) {
            holdExpiresAt = e.holdExpiresAt();
            holdOpen = e.holdExpiresAt() != null && capture == CaptureMode.DEFERRED; // its deadline was scheduled
        } else if (event instanceof CheckoutCompletedEvent) {
            holdOpen = false;
        } else if (event instanceof PaymentCaptureRequestedEvent e) {
            order = order.capturing(e.amount());
        } else if (event instanceof PaymentCapturedEvent e) {
            order = order.captured(e.amount());
        } else if (event instanceof PaymentCaptureFailedEvent e) {
            if (!cancelRequested) {
                cancelReason = CancellationReason.CAPTURE_DECLINED;
                cancelDetail = e.reason();
            }
        } else if (event instanceof PaymentAuthorizedEvent) {
            paymentOutcome = ManualResolution.AUTHORIZED;
        } else if (event instanceof PaymentDeclinedEvent e) {
            paymentOutcome = ManualResolution.DECLINED;
            if (!cancelRequested) {
                cancelReason = CancellationReason.PAYMENT_DECLINED;
                cancelDetail = e.reason();
            }
        } else if (event instanceof PaymentReconciliationScheduledEvent e) {
            scheduledLookup = e.lookupNumber();
        } else if (event instanceof io.durablecheckout.api.checkout.CustomerActionRequiredEvent e) {
            customerActionUntil = e.until();
        } else if (event instanceof ReceiptSentEvent) {
            receiptSent = true;
        } else if (event instanceof CheckoutCancellationRequestedEvent e) {
            cancelRequested = true;
            cancelReason = e.reason();
            cancelDetail = e.detail();
        } else if (event instanceof CheckoutCancelledEvent e) {
            cancelReason = e.reason();
            holdOpen = false;
        } else if (event instanceof ManualReviewRequiredEvent e) {
            blockedStep = e.blockedStep();
            if (e.blockedStep() == Step.RECONCILE_PAYMENT) {
                lookupBudgetStart = scheduledLookup;
            }
        } else if (event instanceof PaymentOutcomeDisputedEvent) {
            disputeOpen = true;
        } else if (event instanceof ProviderNotificationHeldEvent e) {
            Map<String, ProviderNotificationHeldEvent> held = new LinkedHashMap<>(heldNotifications);
            held.put(e.notificationId(), e);
            heldNotifications = Collections.unmodifiableMap(held);
        } else if (event instanceof ManualReviewResolvedEvent) {
            disputeOpen = false;
        } else if (event instanceof PaymentOperationOrderedEvent e) {
            operatorOperation = e;
            operatorRefunds += e.step() == Step.REFUND_PAYMENT ? 1 : 0;
        } else if (event instanceof PaymentRefundRequestedEvent e) {
            refundInFlight = e.amount();
        } else if (event instanceof PaymentRefundedEvent) {
            order = refundInFlight == null ? order : order.refunded(refundInFlight);
            refundInFlight = null;
        } else if (event instanceof PaymentVoidedEvent e) {
            holdReleased |= operatorOperation != null && operatorOperation.operationId().equals(e.operationId());
        }
        // the rest (results rejected, confirmations, completion, operator retries) change no fact a decision reads
    }

    // ------------------------------------------------------------------------------------------------ reading

    public CheckoutId checkoutId() {
        return checkoutId;
    }

    Order order() {
        return order;
    }

    WorkflowPolicy policy() {
        return policy;
    }

    int rulesVersion() {
        return rulesVersion;
    }

    public CheckoutState state() {
        return state;
    }

    /** The latest run of {@code step}, or {@code null} if it was never requested. */
    public Run run(Step step) {
        return runs.get(step);
    }

    CaptureMode capture() {
        return capture;
    }

    Instant holdExpiresAt() {
        return holdExpiresAt;
    }

    boolean holdOpen() {
        return holdOpen;
    }

    /** A capture took money (the refund's amount is what it took). */
    boolean captured() {
        return order != null && order.captured() != null;
    }

    boolean cancelRequested() {
        return cancelRequested;
    }

    CancellationReason cancelReason() {
        return cancelReason;
    }

    String cancelDetail() {
        return cancelDetail;
    }

    Instant customerActionUntil() {
        return customerActionUntil;
    }

    int scheduledLookup() {
        return scheduledLookup;
    }

    /** Lookups made since the budget last started (at the first unknown outcome, or an operator's retry). */
    int lookupsUsed() {
        return scheduledLookup - lookupBudgetStart;
    }

    Step blockedStep() {
        return blockedStep;
    }

    ManualResolution paymentOutcome() {
        return paymentOutcome;
    }

    boolean disputeOpen() {
        return disputeOpen;
    }

    boolean holdsNotification(String notificationId) {
        return heldNotifications.containsKey(notificationId);
    }

    /**
     * What decides which compensations are owed (see {@link Workflow#COMPENSATIONS}). A hold an operator released is
     * as good as declined (nothing to void or refund); what refunds already returned in full is not refunded again.
     */
    Workflow.Facts compensationFacts() {
        boolean charged = rulesVersion >= WorkflowPolicy.CAPTURES || captured() ? captured() : receiptSent;
        boolean nothingToReturn = holdReleased || (charged && order.refundable().minor() <= 0);
        return new Workflow.Facts(runs.keySet(), paymentOutcome == ManualResolution.DECLINED || nothingToReturn, charged);
    }

    /** The latest payment operation an operator ordered ({@code null}: none). */
    public PaymentOperationOrderedEvent operatorOperation() {
        return operatorOperation;
    }

    /** An operator's payment operation was ordered and has not concluded (in flight, waiting to retry, or blocked). */
    public boolean operatorOperationOpen() {
        if (operatorOperation == null) {
            return false;
        }
        Run run = runs.get(operatorOperation.step());
        return run != null && run.lease().operationId().equals(operatorOperation.operationId())
                && run.status() != Run.Status.DONE;
    }

    /** Whether the latest run of {@code step} is an operator's payment operation (an operation id of its own). */
    boolean operatorOperationOf(Step step) {
        Run run = runs.get(step);
        return run != null && Workflow.isOperatorOperation(checkoutId, step, run.lease().operationId());
    }

    int operatorRefunds() {
        return operatorRefunds;
    }

    boolean holdReleased() {
        return holdReleased;
    }

    /** What a refund may still return: captured (rules 2: paid) less refunded; {@code null} before the first event. */
    public Money refundable() {
        return order == null ? null : order.refundable();
    }

    boolean isCompensatingOrCancelled() {
        return switch (state) {
            case PAYMENT_DECLINED, STOCK_RELEASE_PENDING, VOID_PENDING, REFUND_REQUESTED, REFUND_CONFIRMED,
                 CANCELLATION_NOTICE_PENDING, CANCELLED -> true;
            default -> false;
        };
    }

    /** The reference of the latest held notification that reported the payment authorized, if any. */
    String heldAuthorizationReference() {
        return heldNotifications.values().stream()
                .filter(n -> n.reportedOutcome() == ManualResolution.AUTHORIZED && n.providerReference() != null)
                .map(ProviderNotificationHeldEvent::providerReference).reduce((first, last) -> last).orElse(null);
    }

    // -------------------------------------------------------------------------------------------- internals

    private CheckoutFacts copy() {
        CheckoutFacts c = new CheckoutFacts();
        c.checkoutId = checkoutId;
        c.order = order;
        c.policy = policy;
        c.rulesVersion = rulesVersion;
        c.state = state;
        c.runs = runs;
        c.cancelRequested = cancelRequested;
        c.cancelReason = cancelReason;
        c.cancelDetail = cancelDetail;
        c.receiptSent = receiptSent;
        c.capture = capture;
        c.holdExpiresAt = holdExpiresAt;
        c.holdOpen = holdOpen;
        c.scheduledLookup = scheduledLookup;
        c.customerActionUntil = customerActionUntil;
        c.lookupBudgetStart = lookupBudgetStart;
        c.blockedStep = blockedStep;
        c.paymentOutcome = paymentOutcome;
        c.disputeOpen = disputeOpen;
        c.heldNotifications = heldNotifications;
        c.operatorOperation = operatorOperation;
        c.operatorRefunds = operatorRefunds;
        c.refundInFlight = refundInFlight;
        c.holdReleased = holdReleased;
        return c;
    }

    @Override
    public String toString() {
        return "CheckoutFacts[" + checkoutId + " " + state + " runs=" + runs + " lookup=" + scheduledLookup + "/"
                + lookupBudgetStart + " payment=" + paymentOutcome + " cancelRequested=" + cancelRequested + "]";
    }
}
