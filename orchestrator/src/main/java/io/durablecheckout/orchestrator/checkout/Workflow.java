package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.CancellationNoticeDeliverySucceededEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationSucceededEvent;
import io.durablecheckout.api.activity.PaymentCaptureSucceededEvent;
import io.durablecheckout.api.checkout.PaymentCaptureRequestedEvent;
import io.durablecheckout.api.checkout.PaymentCapturedEvent;
import io.durablecheckout.api.activity.PaymentRefundSucceededEvent;
import io.durablecheckout.api.activity.PaymentVoidSucceededEvent;
import io.durablecheckout.api.activity.ReceiptDeliverySucceededEvent;
import io.durablecheckout.api.activity.StockReleaseSucceededEvent;
import io.durablecheckout.api.activity.StockReservationSucceededEvent;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.CancellationNoticeSentEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentRefundedEvent;
import io.durablecheckout.api.checkout.PaymentVoidedEvent;
import io.durablecheckout.api.checkout.ReceiptSentEvent;
import io.durablecheckout.api.checkout.StockReleasedEvent;
import io.durablecheckout.api.checkout.StockReservedEvent;
import io.durablecheckout.api.checkout.CancellationNoticeRequestedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentRefundRequestedEvent;
import io.durablecheckout.api.checkout.PaymentVoidRequestedEvent;
import io.durablecheckout.api.checkout.ReceiptRequestedEvent;
import io.durablecheckout.api.checkout.StockReleaseRequestedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.values.CaptureMode;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Predicate;

import static io.durablecheckout.api.values.Step.AUTHORIZE_PAYMENT;
import static io.durablecheckout.api.values.Step.CAPTURE_PAYMENT;
import static io.durablecheckout.api.values.Step.RECONCILE_PAYMENT;
import static io.durablecheckout.api.values.Step.REFUND_PAYMENT;
import static io.durablecheckout.api.values.Step.RELEASE_STOCK;
import static io.durablecheckout.api.values.Step.RESERVE_STOCK;
import static io.durablecheckout.api.values.Step.SEND_CANCELLATION_NOTICE;
import static io.durablecheckout.api.values.Step.SEND_RECEIPT;
import static io.durablecheckout.api.values.Step.VOID_PAYMENT;
import static io.durablecheckout.orchestrator.checkout.Workflow.Move.CANCEL;
import static io.durablecheckout.orchestrator.checkout.Workflow.Move.CONTINUE;
import static io.durablecheckout.orchestrator.checkout.Workflow.Move.RETRY;
import static io.durablecheckout.orchestrator.checkout.Workflow.Move.COMPENSATE;
import static io.durablecheckout.orchestrator.checkout.Workflow.Move.LOOK_AGAIN;
import static io.durablecheckout.orchestrator.checkout.Workflow.Move.RECONCILE;
import static io.durablecheckout.orchestrator.checkout.Workflow.Move.AWAIT_CUSTOMER;
import static io.durablecheckout.orchestrator.checkout.Workflow.Result.ACTION_REQUIRED;
import static io.durablecheckout.orchestrator.checkout.Workflow.Result.FAILED;
import static io.durablecheckout.orchestrator.checkout.Workflow.Result.NOT_FOUND;
import static io.durablecheckout.orchestrator.checkout.Workflow.Result.SUCCEEDED;
import static io.durablecheckout.orchestrator.checkout.Workflow.Result.UNKNOWN;

/**
 * The checkout workflow as one table that reads top to bottom: for each step, the request (intent) that asks for it,
 * the state the checkout is in while it is pending, and what each kind of result leads to; then the compensations in
 * the order they run; then the rules that hold for every step ({@link #POLICIES}), each with the function the
 * {@link CheckoutDecider} asks. {@link CheckoutFacts} and the read model take the pending states and wording from it,
 * and {@code docs/workflow.md}'s tables and diagram are rendered from it (checked by a test). Nothing else names a
 * step's request, pending state or follow-up.
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
        NOT_FOUND,
        /** The provider needs the customer (3-D Secure) before it decides; its notification decides later. */
        ACTION_REQUIRED
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
        /**
         * Go on with the next of what follows a confirmation in the checkout's capture mode ({@link #afterConfirmation}),
         * after the step that concluded; completed after the last. A deferred capture waits for the tenant's call
         * (awaiting_capture) instead of being issued.
         */
        CONTINUE,
        /** Ask again after a back-off under the same operation id (an unknown outcome the provider deduplicates). */
        RETRY,
        /**
         * Wait for the customer (customer_action_required) until {@code customer-action-timeout}: the provider's
         * notification settles the payment; then, still waiting, the checkout is cancelled (void, stock release).
         */
        AWAIT_CUSTOMER,
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
     * The success report of a step: the activity's result event that says it happened, the checkout's fact that
     * records it (built from the result), and the word the read model shows for it ("reserved").
     */
    record Report(Class<? extends ActivityResultEvent> result, Class<? extends CheckoutEvent> fact, String doneInWords,
                  BiFunction<CheckoutId, ActivityResultEvent, CheckoutEvent> record, CheckoutState stateAfter) {
    }

    /** Whose lease length a step's lease has ({@code lease-duration} or {@code payment-lease-duration}). */
    enum LeaseKind { STEP, PAYMENT }

    /**
     * One step: its request, its pending state, how the read model names what is awaited, the follow-up of each
     * result ({@code cancelling}: of a success that arrives once a cancellation was requested), the report of its
     * success and its lease's length. Built with named parts: {@code row(step, request, build).pendingIn(state,
     * awaited).reportedBy(result, fact, word, record).on(result, then)...whenCancelling(then)}.
     */
    record Row(Step step, Class<? extends ActivityIntent> request, Request build, CheckoutState pendingState,
               String awaited, Map<Result, Then> then, Then cancelling, Report report, LeaseKind lease) {

        /** The state the checkout is in while the step is pending, and what it waits for, in words. */
        Row pendingIn(CheckoutState state, String awaitedInWords) {
            return new Row(step, request, build, state, awaitedInWords, then, cancelling, report, lease);
        }

        /**
         * The activity's {@code result} that reports this step done, the {@code fact} the checkout records for it
         * (built by {@code record}) and the read model's word for it.
         */
        @SuppressWarnings("unchecked")
        <R extends ActivityResultEvent, F extends CheckoutEvent> Row reportedBy(
                Class<R> result, Class<F> fact, String doneInWords, BiFunction<CheckoutId, R, F> record) {
            BiFunction<CheckoutId, ActivityResultEvent, CheckoutEvent> any = (id, r) -> record.apply(id, (R) r);
            return new Row(step, request, build, pendingState, awaited, then, cancelling,
                    new Report(result, fact, doneInWords, any, null), lease);
        }

        /** The state the step's success fact puts the checkout in (none: the fact leaves the state as it is). */
        Row doneIn(CheckoutState state) {
            return new Row(step, request, build, pendingState, awaited, then, cancelling,
                    new Report(report.result(), report.fact(), report.doneInWords(), report.record(), state), lease);
        }

        /** The step's lease runs for the payment lease length (a provider's call), not the step lease length. */
        Row leasedAsPayment() {
            return new Row(step, request, build, pendingState, awaited, then, cancelling, report, LeaseKind.PAYMENT);
        }

        /** What {@code result} of this step leads to. */
        Row on(Result result, Then next) {
            Map<Result, Then> all = new EnumMap<>(Result.class);
            all.putAll(then);
            all.put(result, next);
            return new Row(step, request, build, pendingState, awaited, Map.copyOf(all), cancelling, report, lease);
        }

        /** What a success leads to once a cancellation was requested (none: as without one). */
        Row whenCancelling(Then next) {
            return new Row(step, request, build, pendingState, awaited, then, next, report, lease);
        }

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

    /**
     * What decides whether a compensation is owed: which steps were ever requested, and what became of the payment
     * ({@code charged}: a capture took money; under rules version 2, which had no capture, the receipt was sent).
     */
    record Facts(Set<Step> requested, boolean paymentDeclined, boolean charged) {
    }

    /** A compensation, what it undoes, and when it is owed ({@code owedWhen} says it in words, for the docs). */
    record Compensation(Step step, Step undoes, String owedWhen, Predicate<Facts> owed) {
    }

    private static final Then CONFIRM_AND_CONTINUE = Then.confirmThen(Then.of(CONTINUE));

    /** Forward steps in order; the lookup stands in for the authorization while its outcome is unknown. */
    static final List<Row> STEPS = List.of(
            row(RESERVE_STOCK, StockReservationRequestedEvent.class,
                    (o, n, lease) -> new StockReservationRequestedEvent(o.checkoutId(), o.tenantId(), o.items(), lease))
                    .pendingIn(CheckoutState.CREATED, "stock reservation")
                    .reportedBy(StockReservationSucceededEvent.class, StockReservedEvent.class, "reserved",
                            (id, r) -> new StockReservedEvent(id, r.operationId(), r.fencingToken()))
                    .doneIn(CheckoutState.STOCK_RESERVED)
                    .on(SUCCEEDED, Then.issue(AUTHORIZE_PAYMENT))
                    .on(FAILED, Then.of(CANCEL))
                    .whenCancelling(Then.of(COMPENSATE)),
            row(AUTHORIZE_PAYMENT, PaymentAuthorizationRequestedEvent.class,
                    (o, n, lease) -> new PaymentAuthorizationRequestedEvent(o.checkoutId(), o.tenantId(), o.amount(),
                            o.paymentToken(), lease))
                    .pendingIn(CheckoutState.STOCK_RESERVED, "payment authorization")
                    .reportedBy(PaymentAuthorizationSucceededEvent.class, PaymentAuthorizedEvent.class, "authorized",
                            (id, r) -> new PaymentAuthorizedEvent(id, r.operationId(), r.fencingToken(),
                                    r.providerReference()))
                    .doneIn(CheckoutState.PAYMENT_AUTHORIZED)
                    .leasedAsPayment()
                    .on(SUCCEEDED, CONFIRM_AND_CONTINUE)
                    .on(FAILED, Then.of(COMPENSATE))
                    .on(UNKNOWN, Then.of(RECONCILE)) // a timeout is unknown, never a decline
                    .on(ACTION_REQUIRED, Then.of(AWAIT_CUSTOMER))
                    .whenCancelling(Then.of(COMPENSATE)),
            row(RECONCILE_PAYMENT, PaymentReconciliationRequestedEvent.class,
                    (o, n, lease) -> new PaymentReconciliationRequestedEvent(o.checkoutId(), o.tenantId(),
                            OperationId.of(o.checkoutId(), AUTHORIZE_PAYMENT), n, lease))
                    .pendingIn(CheckoutState.RECONCILIATION_PENDING, "payment lookup")
                    .leasedAsPayment() // its answers are read by Results: they are about the authorization
                    .on(SUCCEEDED, CONFIRM_AND_CONTINUE)
                    .on(FAILED, Then.of(COMPENSATE))
                    .on(UNKNOWN, Then.of(LOOK_AGAIN))
                    // void the authorization's operation id first (a tombstone: a request still on its way is then
                    // refused), the stock after that
                    .on(NOT_FOUND, Then.issue(VOID_PAYMENT))
                    .whenCancelling(Then.of(COMPENSATE)),
            // the authorization's money is taken under the capture's own operation id (the provider's idempotency
            // key): a timeout asks again under it, so a capture that did happen is answered, never repeated
            row(CAPTURE_PAYMENT, PaymentCaptureRequestedEvent.class,
                    (o, n, lease) -> new PaymentCaptureRequestedEvent(o.checkoutId(), o.tenantId(),
                            OperationId.of(o.checkoutId(), AUTHORIZE_PAYMENT), o.toCapture(), lease))
                    .pendingIn(CheckoutState.CAPTURE_PENDING, "payment capture")
                    .reportedBy(PaymentCaptureSucceededEvent.class, PaymentCapturedEvent.class, "captured",
                            (id, r) -> new PaymentCapturedEvent(id, r.operationId(), r.fencingToken(),
                                    r.providerReference(), r.amount()))
                    .leasedAsPayment()
                    .on(SUCCEEDED, Then.of(CONTINUE))
                    .on(FAILED, Then.of(COMPENSATE))
                    .on(UNKNOWN, Then.of(RETRY))
                    .whenCancelling(Then.of(COMPENSATE)),
            row(SEND_RECEIPT, ReceiptRequestedEvent.class,
                    (o, n, lease) -> new ReceiptRequestedEvent(o.checkoutId(), o.tenantId(), o.customerEmail(),
                            o.amount(), lease))
                    .pendingIn(CheckoutState.CONFIRMED, "receipt")
                    .reportedBy(ReceiptDeliverySucceededEvent.class, ReceiptSentEvent.class, "sent",
                            (id, r) -> new ReceiptSentEvent(id, r.operationId(), r.fencingToken()))
                    .on(SUCCEEDED, Then.of(CONTINUE))
                    .whenCancelling(Then.of(COMPENSATE))); // refunds what a capture took, voids otherwise

    /**
     * What follows a confirmation, in order, for a checkout's capture mode: on confirmation the money is taken first, so
     * the receipt says what was charged and when; deferred, the receipt goes first (saying the card is charged on
     * shipment) and the capture waits for the tenant's call. Under rules version 2 (no capture step): the receipt only.
     */
    static List<Step> afterConfirmation(CaptureMode mode, int rulesVersion) {
        if (rulesVersion < WorkflowPolicy.CAPTURES) {
            return List.of(SEND_RECEIPT);
        }
        return mode == CaptureMode.DEFERRED ? List.of(SEND_RECEIPT, CAPTURE_PAYMENT) : List.of(CAPTURE_PAYMENT, SEND_RECEIPT);
    }

    /**
     * The receipt's row under rules version 2 and before (no capture step): a cancellation that arrived while the
     * receipt was in flight completed the checkout, then refunded. Histories recorded then replay under it.
     */
    static final Row RECEIPT_BEFORE_CAPTURE = STEPS.stream().filter(r -> r.step() == SEND_RECEIPT).findFirst().orElseThrow()
            .whenCancelling(Then.completeThen(Then.of(COMPENSATE)));

    /** Compensation steps; each success goes on with the next compensation owed. */
    static final List<Row> COMPENSATION_STEPS = List.of(
            row(VOID_PAYMENT, PaymentVoidRequestedEvent.class,
                    (o, n, lease) -> new PaymentVoidRequestedEvent(o.checkoutId(), o.tenantId(),
                            OperationId.of(o.checkoutId(), AUTHORIZE_PAYMENT), o.amount(), lease))
                    .pendingIn(CheckoutState.VOID_PENDING, "payment void")
                    .reportedBy(PaymentVoidSucceededEvent.class, PaymentVoidedEvent.class, "voided",
                            (id, r) -> new PaymentVoidedEvent(id, r.operationId(), r.fencingToken(), r.providerReference()))
                    .leasedAsPayment()
                    .on(SUCCEEDED, Then.of(COMPENSATE)),
            row(REFUND_PAYMENT, PaymentRefundRequestedEvent.class,
                    (o, n, lease) -> new PaymentRefundRequestedEvent(o.checkoutId(), o.tenantId(),
                            OperationId.of(o.checkoutId(), AUTHORIZE_PAYMENT), o.refundable(), lease))
                    .pendingIn(CheckoutState.REFUND_REQUESTED, "refund")
                    .reportedBy(PaymentRefundSucceededEvent.class, PaymentRefundedEvent.class, "refunded",
                            (id, r) -> new PaymentRefundedEvent(id, r.operationId(), r.fencingToken(),
                                    r.providerReference()))
                    .doneIn(CheckoutState.REFUND_CONFIRMED)
                    .leasedAsPayment()
                    .on(SUCCEEDED, Then.of(COMPENSATE)),
            row(RELEASE_STOCK, StockReleaseRequestedEvent.class,
                    (o, n, lease) -> new StockReleaseRequestedEvent(o.checkoutId(), o.tenantId(),
                            OperationId.of(o.checkoutId(), RESERVE_STOCK), lease))
                    .pendingIn(CheckoutState.STOCK_RELEASE_PENDING, "stock release")
                    .reportedBy(StockReleaseSucceededEvent.class, StockReleasedEvent.class, "released",
                            (id, r) -> new StockReleasedEvent(id, r.operationId(), r.fencingToken()))
                    .on(SUCCEEDED, Then.of(COMPENSATE)),
            row(SEND_CANCELLATION_NOTICE, CancellationNoticeRequestedEvent.class,
                    (o, n, lease) -> new CancellationNoticeRequestedEvent(o.checkoutId(), o.tenantId(),
                            o.customerEmail(), lease))
                    .pendingIn(CheckoutState.CANCELLATION_NOTICE_PENDING, "cancellation notice")
                    .reportedBy(CancellationNoticeDeliverySucceededEvent.class, CancellationNoticeSentEvent.class,
                            "sent", (id, r) -> new CancellationNoticeSentEvent(id, r.operationId(), r.fencingToken()))
                    .on(SUCCEEDED, Then.of(COMPENSATE)));

    /** Compensations in the order they run: money first, then stock, then the word to the customer. */
    static final List<Compensation> COMPENSATIONS = List.of(
            new Compensation(VOID_PAYMENT, AUTHORIZE_PAYMENT,
                    "an authorization was requested, not declined, nothing captured (rules 2: no receipt sent)",
                    f -> f.requested().contains(AUTHORIZE_PAYMENT) && !f.paymentDeclined() && !f.charged()),
            new Compensation(REFUND_PAYMENT, AUTHORIZE_PAYMENT, "a capture took money (rules 2: the receipt was sent)",
                    f -> f.requested().contains(AUTHORIZE_PAYMENT) && !f.paymentDeclined() && f.charged()),
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
            CheckoutState.AWAITING_CAPTURE, "while the payment awaits capture",
            CheckoutState.CUSTOMER_ACTION_REQUIRED, "while the payment waits for the customer",
            CheckoutState.COMPLETED, "after completion",
            CheckoutState.MANUAL_REVIEW, "in manual review");

    // ------------------------------------------------------------------------------ the rules around the table

    /** A rule that holds for every step, next to the table (docs/workflow.md lists them, rendered from here). */
    record Policy(String name, String rule) {
    }

    static final List<Policy> POLICIES = List.of(
            new Policy("fencing", "a result or heartbeat counts only from the owner of the lease in force (same "
                    + "operation id, same fencing token); any other is recorded as rejected and changes nothing"),
            new Policy("retry", "a failed attempt is tried again after a back-off (`retry-initial-delay`, doubling up "
                    + "to `retry-max-delay`) under the same operation id with the next fencing token; so is an expired lease"),
            new Policy("attempt budget", "once `max-attempts` attempts of one operation failed or expired, the step "
                    + "is blocked in `manual_review`; an operator's retry starts a fresh budget"),
            new Policy("lease deferral", "a lease nobody has claimed (no heartbeat yet) is checked again a lease "
                    + "later while its step's processor has not passed the intent (it still waits in the queue: no "
                    + "attempt used, nothing re-issued); once passed, it runs `max-attempts` − 1 leases more, then expires "
                    + "(rules version 1: deferred once, by `max-attempts` − 1 leases, even while queued)"),
            new Policy("cancellation while a step runs", "in `stock_reserved` (between authorization attempts), "
                    + "`completed` and `manual_review` a cancellation compensates at once; elsewhere the step in "
                    + "flight concludes first and its row's cancelling column compensates; a checkout already "
                    + "compensating acknowledges it"),
            new Policy("operator's cancel in review", "in `manual_review` an operator's cancellation compensates "
                    + "even when a cancellation was requested earlier (e.g. a customer's, while the payment was being "
                    + "reconciled): the earlier request waited for a step that can no longer conclude on its own"),
            new Policy("late evidence", "a conclusive result from the owner of the current lease of the step "
                    + "blocked in `manual_review` settles the review as that result would have"),
            new Policy("lookup budget", "after `reconciliation-max-lookups` inconclusive lookups (back-off from "
                    + "`reconciliation-initial-delay`), `manual_review`; an operator's retry starts a fresh budget"),
            new Policy("capture", "rules version 3: after confirmation `on_confirmation` (the default) captures, "
                    + "then sends the receipt; `deferred` sends the receipt, waits in `awaiting_capture` for the "
                    + "tenant's capture call, then captures; completed after the last. The hold's lapse (`hold-validity` "
                    + "after confirmation) cancels a checkout whose capture was never asked for (void, stock release, "
                    + "notice if a receipt went out); once asked, the provider's answer decides. Rules 2: no capture "
                    + "step, the receipt completes the checkout"),
            new Policy("customer's part", "an authorization that needs the customer (3-D Secure) waits in "
                    + "`customer_action_required` (the API answer carries the provider's next action) until the provider's "
                    + "notification settles it, or `customer-action-timeout` passes: then it is cancelled (void, stock release)"),
            new Policy("operator's payment operations", "on a completed checkout, one at a time, under an "
                    + "operation id of its own that leaves it completed: a partial refund (at most captured less "
                    + "refunded; a cancel refunds the rest), or a rules 2 hold's capture or release"),
            new Policy("provider notifications", "a notification settles an unknown payment outcome; it never "
                    + "overrides a recorded one (a dispute instead), and is held as evidence while an operator or a "
                    + "compensation owns the checkout"));

    /**
     * Cancellation while a step runs: whether a cancellation requested in {@code state} compensates at once (never
     * while an authorization is in flight: its outcome compensates through the cancelling column).
     */
    static boolean compensatesOnCancel(CheckoutState state, boolean authorizationInFlight) {
        return COMPENSATE_ON_CANCEL.containsKey(state)
                && !(state == CheckoutState.STOCK_RESERVED && authorizationInFlight);
    }

    /**
     * Operator's cancel in review: a cancellation compensates now although one was requested before, because it is an
     * operator's in {@code manual_review} and nothing is being undone yet.
     */
    static boolean operatorCancelOverridesEarlierRequest(CheckoutState state, boolean byOperator) {
        return state == CheckoutState.MANUAL_REVIEW && byOperator;
    }

    /**
     * What an operator may do to a checkout (the operator API's resolve, retry, refund, cancel, and a legacy hold's
     * capture or release).
     */
    public enum OperatorAction {
        RESOLVE_AUTHORIZED, RESOLVE_DECLINED, RETRY, REFUND, CAPTURE_HOLD, RELEASE_HOLD, CANCEL
    }

    // --------------------------------------------------------------- an operator's payment operations (decision 130)

    /**
     * Whether {@code operationId} is an operator's payment operation on a completed checkout rather than the step's
     * own: it has an id of its own (the step's id and a suffix), and neither its request nor its success moves the
     * checkout out of completed.
     */
    public static boolean isOperatorOperation(CheckoutId checkoutId, Step step, OperationId operationId) {
        return step != null && !operationId.equals(OperationId.of(checkoutId, step));
    }

    /** The operation id of the {@code n}-th partial refund an operator orders. */
    static OperationId operatorRefundId(CheckoutId checkoutId, int n) {
        return new OperationId(OperationId.of(checkoutId, REFUND_PAYMENT).value() + "/operator-" + n);
    }

    /** The operation id of a legacy hold's capture ({@code CAPTURE_PAYMENT}) or release ({@code VOID_PAYMENT}). */
    static OperationId legacyHoldId(CheckoutId checkoutId, Step step) {
        return new OperationId(OperationId.of(checkoutId, step).value() + "/legacy-hold");
    }

    /**
     * Operator's payment operations: made on a completed checkout, one at a time, never once a cancellation was
     * requested; {@code null} when one may be ordered, else the rule that refuses it.
     */
    static String operatorOperationRefusal(CheckoutFacts facts) {
        if (facts.state() != CheckoutState.COMPLETED || facts.cancelRequested()) {
            return "an operator's payment operation is made on a completed checkout";
        }
        return facts.operatorOperationOpen() ? "one operator payment operation at a time" : null;
    }

    /** Operator's refund: money a capture took and no refund returned yet remains. */
    static boolean refundable(CheckoutFacts facts) {
        return facts.captured() && facts.refundable().minor() > 0;
    }

    /**
     * Legacy hold: completed under rules before capture was a step (below version 3) and its authorization neither
     * captured nor released by an operator since.
     */
    public static boolean legacyHold(CheckoutFacts facts) {
        return facts.rulesVersion() < WorkflowPolicy.CAPTURES && !facts.captured() && !facts.holdReleased();
    }

    /** An operator's payment operation's request: the authorization's, under the operation's own lease. */
    static ActivityIntent operatorRequest(io.durablecheckout.api.checkout.PaymentOperationOrderedEvent o, Order order,
                                          Lease lease) {
        OperationId authorization = OperationId.of(o.checkoutId(), AUTHORIZE_PAYMENT);
        return switch (o.step()) {
            case REFUND_PAYMENT -> new PaymentRefundRequestedEvent(o.checkoutId(), order.tenantId(), authorization,
                    o.amount(), lease);
            case CAPTURE_PAYMENT -> new PaymentCaptureRequestedEvent(o.checkoutId(), order.tenantId(), authorization,
                    o.amount(), lease);
            case VOID_PAYMENT -> new PaymentVoidRequestedEvent(o.checkoutId(), order.tenantId(), authorization,
                    o.amount(), lease);
            default -> throw new IllegalStateException("not an operator's payment operation: " + o.step());
        };
    }

    /**
     * The operator actions these rules let change something in the state {@code facts} describe: resolving where a
     * payment outcome waits for an operator (a review blocked on it, or a dispute), retrying a review, and cancelling
     * where a cancellation still compensates or is recorded. A finished checkout offers a cancel after completion (a
     * refund), a partial refund while captured money remains, a legacy hold's capture or release, and, with a dispute
     * open, a resolution; none of them while an operator's payment operation runs.
     */
    public static List<OperatorAction> operatorActions(CheckoutFacts facts) {
        CheckoutState state = facts.state();
        if (state == null) {
            return List.of();
        }
        List<OperatorAction> actions = new java.util.ArrayList<>();
        boolean review = state == CheckoutState.MANUAL_REVIEW;
        boolean paymentBlocked = review && (facts.blockedStep() == AUTHORIZE_PAYMENT
                || facts.blockedStep() == RECONCILE_PAYMENT);
        if (paymentBlocked || (facts.disputeOpen() && !review)) {
            actions.add(OperatorAction.RESOLVE_AUTHORIZED);
            actions.add(OperatorAction.RESOLVE_DECLINED);
        }
        if (review) {
            actions.add(OperatorAction.RETRY);
        }
        if (operatorOperationRefusal(facts) == null && refundable(facts)) {
            actions.add(OperatorAction.REFUND);
        }
        if (operatorOperationRefusal(facts) == null && legacyHold(facts)) {
            actions.add(OperatorAction.CAPTURE_HOLD);
            actions.add(OperatorAction.RELEASE_HOLD);
        }
        if (!facts.isCompensatingOrCancelled() && !facts.operatorOperationOpen()
                && (!facts.cancelRequested() || operatorCancelOverridesEarlierRequest(state, true))) {
            actions.add(OperatorAction.CANCEL);
        }
        return List.copyOf(actions);
    }

    /** Attempt budget: {@code failures} attempts of one operation failed or expired. */
    static boolean attemptsUsedUp(int failures, WorkflowPolicy policy) {
        return failures >= policy.maxAttempts();
    }

    /** Lookup budget: {@code used} lookups since the budget started. */
    static boolean lookupsUsedUp(int used, WorkflowPolicy policy) {
        return used >= policy.reconciliationMaxLookups();
    }

    /** Late evidence: a conclusive report from the owner of the current lease of the step blocked in review. */
    static boolean isLateEvidence(CheckoutState state, Step blockedStep, Step step, boolean blocked, boolean conclusive) {
        return state == CheckoutState.MANUAL_REVIEW && blocked && step == blockedStep && conclusive;
    }

    private static final Map<Step, Row> BY_STEP = new EnumMap<>(Step.class);
    private static final Map<Class<?>, Row> BY_RESULT = new java.util.HashMap<>();
    private static final Map<Class<?>, Row> BY_FACT = new java.util.HashMap<>();

    static {
        STEPS.forEach(r -> BY_STEP.put(r.step(), r));
        COMPENSATION_STEPS.forEach(r -> BY_STEP.put(r.step(), r));
        if (BY_STEP.size() != Step.values().length) {
            throw new IllegalStateException("the workflow table has no row for some step: " + BY_STEP.keySet());
        }
        for (Row r : BY_STEP.values()) {
            if (r.report() != null && (BY_RESULT.put(r.report().result(), r) != null
                    || BY_FACT.put(r.report().fact(), r) != null)) {
                throw new IllegalStateException("two rows report with " + r.report());
            }
        }
    }

    /** The row whose success {@code result} reports, or {@code null} (a result read by its own rule). */
    static Row reportedBy(ActivityResultEvent result) {
        return BY_RESULT.get(result.getClass());
    }

    /** The step whose success {@code fact} records, or {@code null}. */
    public static Step recordedBy(CheckoutEvent fact) {
        Row row = BY_FACT.get(fact.getClass());
        return row == null ? null : row.step();
    }

    /** The state a step's success {@code fact} puts the checkout in, or {@code null}: it leaves it. */
    static CheckoutState stateAfter(CheckoutEvent fact) {
        Row row = BY_FACT.get(fact.getClass());
        return row == null ? null : row.report().stateAfter();
    }

    /** The read model's word for {@code step} done ("reserved"), or {@code null} for a step without a report. */
    public static String doneInWords(Step step) {
        Report report = BY_STEP.get(step).report();
        return report == null ? null : report.doneInWords();
    }

    /** Lease length: whether {@code step}'s lease runs for the payment lease length. */
    static boolean paymentLease(Step step) {
        return BY_STEP.get(step).lease() == LeaseKind.PAYMENT;
    }

    private Workflow() {
    }

    static Row row(Step step) {
        return BY_STEP.get(step);
    }

    /** {@code step}'s row under the rules version a checkout recorded (rules 2: the receipt completed it). */
    static Row row(Step step, int rulesVersion) {
        return step == SEND_RECEIPT && rulesVersion < WorkflowPolicy.CAPTURES ? RECEIPT_BEFORE_CAPTURE : BY_STEP.get(step);
    }

    /** Every step in workflow order: the forward steps, then the compensations in the order they run. */
    public static List<Step> stepsInOrder() {
        List<Step> all = new java.util.ArrayList<>();
        STEPS.forEach(r -> all.add(r.step()));
        COMPENSATIONS.forEach(c -> all.add(c.step()));
        return List.copyOf(all);
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

    /** A step's row, to be completed with its named parts. */
    private static Row row(Step step, Class<? extends ActivityIntent> request, Request build) {
        return new Row(step, request, build, null, null, Map.of(), null, null, LeaseKind.STEP);
    }
}
