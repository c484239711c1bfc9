package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.CancellationNoticeRequestedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentRefundRequestedEvent;
import io.durablecheckout.api.checkout.PaymentVoidRequestedEvent;
import io.durablecheckout.api.checkout.ReceiptRequestedEvent;
import io.durablecheckout.api.checkout.StockReleaseRequestedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import static io.durablecheckout.api.values.Step.AUTHORIZE_PAYMENT;
import static io.durablecheckout.api.values.Step.RECONCILE_PAYMENT;
import static io.durablecheckout.api.values.Step.REFUND_PAYMENT;
import static io.durablecheckout.api.values.Step.RELEASE_STOCK;
import static io.durablecheckout.api.values.Step.RESERVE_STOCK;
import static io.durablecheckout.api.values.Step.SEND_CANCELLATION_NOTICE;
import static io.durablecheckout.api.values.Step.SEND_RECEIPT;
import static io.durablecheckout.api.values.Step.VOID_PAYMENT;
import static io.durablecheckout.orchestrator.checkout.Workflow.Move.CANCEL;
import static io.durablecheckout.orchestrator.checkout.Workflow.Move.COMPENSATE;
import static io.durablecheckout.orchestrator.checkout.Workflow.Move.LOOK_AGAIN;
import static io.durablecheckout.orchestrator.checkout.Workflow.Move.RECONCILE;
import static io.durablecheckout.orchestrator.checkout.Workflow.Result.FAILED;
import static io.durablecheckout.orchestrator.checkout.Workflow.Result.NOT_FOUND;
import static io.durablecheckout.orchestrator.checkout.Workflow.Result.SUCCEEDED;
import static io.durablecheckout.orchestrator.checkout.Workflow.Result.UNKNOWN;

/**
 * The checkout workflow as one table: for each step, the request (intent) that asks for it, the state the checkout
 * is in while it is pending, and what each kind of result leads to; then the compensations in the order they run.
 * The {@link Checkout} aggregate interprets it, the read model takes its pending states and wording from it, and
 * {@code docs/workflow.md}'s diagram is rendered from it ({@link WorkflowDiagram}, checked by a test). Nothing else
 * names a step's request, pending state or follow-up.
 * <p>
 * Common to every step, and therefore not a column: a retryable failure ({@code ActivityAttemptFailedEvent}) or an
 * expired lease issues the same request again (same operation id, next fencing token) until
 * {@code max-attempts}, then the step is blocked in manual review; a result with a stale token is rejected.
 */
public final class Workflow {

    /** What an activity reported, once read ({@link Results}). */
    enum Result {
        /** The step happened. */
        SUCCEEDED,
        /** The step was refused for good: a reservation rejected, a payment declined. */
        FAILED,
        /** Nobody knows yet whether the step happened (a payment timeout; a lookup answered PENDING or failed). */
        UNKNOWN,
        /** The provider has no record of the authorization (a lookup, or an operator who found none). */
        NOT_FOUND
    }

    /** The moves a follow-up is made of. */
    enum Move {
        /** Grant a lease for a step: the next step, or a compensation. */
        ISSUE,
        /** Record that the order is confirmed (a decision, no activity), then go on. */
        CONFIRM,
        /** Record that the checkout completed, then go on. */
        COMPLETE,
        /** Issue the first compensation still owed, in {@link #COMPENSATIONS} order; cancelled when none is. */
        COMPENSATE,
        /** Record the cancellation: with the result's reason if it has one, else the recorded one. */
        CANCEL,
        /** Schedule a lookup at the provider under the authorization's original operation id. */
        RECONCILE,
        /** Schedule another lookup, or block in manual review once the lookups are used up. */
        LOOK_AGAIN,
        /** Nothing more. */
        NONE
    }

    /** A follow-up: a move, the step it issues (for {@link Move#ISSUE}), and what comes after it. */
    record Then(Move move, Step step, Then next) {
        static final Then NOTHING = new Then(Move.NONE, null, null);

        static Then issue(Step step) {
            return new Then(Move.ISSUE, step, NOTHING);
        }

        static Then of(Move move) {
            return new Then(move, null, NOTHING);
        }

        static Then confirmThen(Then next) {
            return new Then(Move.CONFIRM, null, next);
        }

        static Then completeThen(Then next) {
            return new Then(Move.COMPLETE, null, next);
        }
    }

    /** Builds a step's request from the checkout's data, the lookup number (reconciliation only) and the lease. */
    interface Request {
        ActivityIntent build(Order order, int lookupNumber, Lease lease);
    }

    /**
     * One step: its request, its pending state, how the read model names what is awaited, and the follow-up of each
     * result ({@code cancelling}: of a success that arrives once a cancellation was requested).
     */
    record Row(Step step, Class<? extends ActivityIntent> request, Request build, CheckoutState pendingState,
               String awaited, Map<Result, Then> then, Then cancelling) {

        /** The follow-up of {@code result}; {@code null} if this step never reports it. */
        Then after(Result result, boolean cancelRequested) {
            return result == SUCCEEDED && cancelRequested && cancelling != null ? cancelling : then.get(result);
        }

        /** The follow-up of a result this step reports. */
        Then follows(Result result, boolean cancelRequested) {
            Then t = after(result, cancelRequested);
            if (t == null) {
                throw new IllegalStateException("the workflow table has no follow-up for " + step + " " + result);
            }
            return t;
        }
    }

    /** What decides whether a compensation is owed: which steps were ever requested, and what became of the payment. */
    record Facts(Set<Step> requested, boolean paymentDeclined, boolean receiptSent) {
    }

    /** A compensation, what it undoes, and when it is owed ({@code owedWhen} says it in words, for the docs). */
    record Compensation(Step step, Step undoes, String owedWhen, Predicate<Facts> owed) {
    }

    private static final Then CONFIRM_AND_SEND_RECEIPT = Then.confirmThen(Then.issue(SEND_RECEIPT));

    /** Forward steps in order; the lookup stands in for the authorization while its outcome is unknown. */
    static final List<Row> STEPS = List.of(
            row(RESERVE_STOCK, StockReservationRequestedEvent.class, CheckoutState.CREATED, "stock reservation",
                    (o, n, lease) -> new StockReservationRequestedEvent(o.checkoutId(), o.tenantId(), o.items(), lease),
                    Map.of(SUCCEEDED, Then.issue(AUTHORIZE_PAYMENT), FAILED, Then.of(CANCEL)),
                    Then.of(COMPENSATE)),
            row(AUTHORIZE_PAYMENT, PaymentAuthorizationRequestedEvent.class, CheckoutState.STOCK_RESERVED,
                    "payment authorization",
                    (o, n, lease) -> new PaymentAuthorizationRequestedEvent(o.checkoutId(), o.tenantId(), o.amount(),
                            o.paymentToken(), lease),
                    Map.of(SUCCEEDED, CONFIRM_AND_SEND_RECEIPT, FAILED, Then.of(COMPENSATE), UNKNOWN, Then.of(RECONCILE)),
                    Then.of(COMPENSATE)),
            row(RECONCILE_PAYMENT, PaymentReconciliationRequestedEvent.class, CheckoutState.RECONCILIATION_PENDING,
                    "payment lookup",
                    (o, n, lease) -> new PaymentReconciliationRequestedEvent(o.checkoutId(), o.tenantId(),
                            OperationId.of(o.checkoutId(), AUTHORIZE_PAYMENT), n, lease),
                    // NOT_FOUND: void the authorization's operation id first (a tombstone: a request still on its
                    // way is then refused), the stock after that
                    Map.of(SUCCEEDED, CONFIRM_AND_SEND_RECEIPT, FAILED, Then.of(COMPENSATE), UNKNOWN, Then.of(LOOK_AGAIN),
                            NOT_FOUND, Then.issue(VOID_PAYMENT)),
                    Then.of(COMPENSATE)),
            row(SEND_RECEIPT, ReceiptRequestedEvent.class, CheckoutState.CONFIRMED, "receipt",
                    (o, n, lease) -> new ReceiptRequestedEvent(o.checkoutId(), o.tenantId(), o.customerEmail(),
                            o.amount(), lease),
                    Map.of(SUCCEEDED, Then.completeThen(Then.NOTHING)),
                    Then.completeThen(Then.of(COMPENSATE))));

    /** Compensation steps; each success goes on with the next compensation owed. */
    static final List<Row> COMPENSATION_STEPS = List.of(
            row(VOID_PAYMENT, PaymentVoidRequestedEvent.class, CheckoutState.VOID_PENDING, "payment void",
                    (o, n, lease) -> new PaymentVoidRequestedEvent(o.checkoutId(), o.tenantId(),
                            OperationId.of(o.checkoutId(), AUTHORIZE_PAYMENT), o.amount(), lease),
                    Map.of(SUCCEEDED, Then.of(COMPENSATE)), null),
            row(REFUND_PAYMENT, PaymentRefundRequestedEvent.class, CheckoutState.REFUND_REQUESTED, "refund",
                    (o, n, lease) -> new PaymentRefundRequestedEvent(o.checkoutId(), o.tenantId(),
                            OperationId.of(o.checkoutId(), AUTHORIZE_PAYMENT), o.amount(), lease),
                    Map.of(SUCCEEDED, Then.of(COMPENSATE)), null),
            row(RELEASE_STOCK, StockReleaseRequestedEvent.class, CheckoutState.STOCK_RELEASE_PENDING, "stock release",
                    (o, n, lease) -> new StockReleaseRequestedEvent(o.checkoutId(), o.tenantId(),
                            OperationId.of(o.checkoutId(), RESERVE_STOCK), lease),
                    Map.of(SUCCEEDED, Then.of(COMPENSATE)), null),
            row(SEND_CANCELLATION_NOTICE, CancellationNoticeRequestedEvent.class,
                    CheckoutState.CANCELLATION_NOTICE_PENDING, "cancellation notice",
                    (o, n, lease) -> new CancellationNoticeRequestedEvent(o.checkoutId(), o.tenantId(),
                            o.customerEmail(), lease),
                    Map.of(SUCCEEDED, Then.of(COMPENSATE)), null));

    /** Compensations in the order they run: money first, then stock, then the word to the customer. */
    static final List<Compensation> COMPENSATIONS = List.of(
            new Compensation(VOID_PAYMENT, AUTHORIZE_PAYMENT,
                    "an authorization was requested, not declined, no receipt sent",
                    f -> f.requested().contains(AUTHORIZE_PAYMENT) && !f.paymentDeclined() && !f.receiptSent()),
            new Compensation(REFUND_PAYMENT, AUTHORIZE_PAYMENT, "the receipt was sent",
                    f -> f.requested().contains(AUTHORIZE_PAYMENT) && !f.paymentDeclined() && f.receiptSent()),
            new Compensation(RELEASE_STOCK, RESERVE_STOCK, "a reservation was requested",
                    f -> f.requested().contains(RESERVE_STOCK)),
            // a receipt that was (or may have been) sent cannot be unsent: it is followed by a notice
            new Compensation(SEND_CANCELLATION_NOTICE, SEND_RECEIPT, "a receipt was requested",
                    f -> f.requested().contains(SEND_RECEIPT)));

    /**
     * States in which a cancellation compensates at once, and when. Elsewhere the step in flight concludes first and
     * the cancelling column of its row compensates; a checkout already compensating acknowledges it.
     */
    static final Map<CheckoutState, String> COMPENSATE_ON_CANCEL = Map.of(
            CheckoutState.STOCK_RESERVED, "while the authorization waits for a retry",
            CheckoutState.COMPLETED, "after completion",
            CheckoutState.MANUAL_REVIEW, "in manual review");

    /**
     * Whether a cancellation requested now compensates at once: in the states of {@link #COMPENSATE_ON_CANCEL}, except
     * while an authorization is in flight (its outcome, whatever it is, then compensates through the cancelling column).
     */
    static boolean compensatesOnCancel(CheckoutFacts facts) {
        Run authorization = facts.run(AUTHORIZE_PAYMENT);
        boolean authorizing = facts.state() == CheckoutState.STOCK_RESERVED && authorization != null
                && authorization.inFlight();
        return COMPENSATE_ON_CANCEL.containsKey(facts.state()) && !authorizing;
    }

    private static final Map<Step, Row> BY_STEP = new EnumMap<>(Step.class);

    static {
        STEPS.forEach(r -> BY_STEP.put(r.step(), r));
        COMPENSATION_STEPS.forEach(r -> BY_STEP.put(r.step(), r));
        if (BY_STEP.size() != Step.values().length) {
            throw new IllegalStateException("the workflow table has no row for some step: " + BY_STEP.keySet());
        }
    }

    private Workflow() {
    }

    static Row row(Step step) {
        return BY_STEP.get(step);
    }

    /** The state a checkout is in while {@code step} is pending. */
    public static CheckoutState pendingState(Step step) {
        return BY_STEP.get(step).pendingState();
    }

    /** What is awaited while {@code step} is pending, in words ("payment authorization"). */
    public static String awaited(Step step) {
        return BY_STEP.get(step).awaited();
    }

    /**
     * The first compensation owed after {@code concluded} in {@link #COMPENSATIONS} order (after a forward step: the
     * first owed at all), or {@code null} when nothing is left to undo.
     */
    static Step nextCompensation(Step concluded, Facts facts) {
        int from = 0;
        for (int i = 0; i < COMPENSATIONS.size(); i++) {
            if (COMPENSATIONS.get(i).step() == concluded) {
                from = i + 1;
            }
        }
        for (Compensation c : COMPENSATIONS.subList(from, COMPENSATIONS.size())) {
            if (c.owed().test(facts)) {
                return c.step();
            }
        }
        return null;
    }

    private static Row row(Step step, Class<? extends ActivityIntent> request, CheckoutState pendingState,
                           String awaited, Request build, Map<Result, Then> then, Then cancelling) {
        return new Row(step, request, build, pendingState, awaited, Map.copyOf(then), cancelling);
    }
}
