package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.checkout.ActivityLeaseDeferredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.CaptureAwaitedEvent;
import io.durablecheckout.api.command.CapturePaymentCommand;
import io.durablecheckout.api.command.RefundPaymentCommand;
import io.durablecheckout.api.command.SettleHoldCommand;
import io.durablecheckout.api.checkout.PaymentOperationOrderedEvent;
import io.durablecheckout.api.values.CaptureMode;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.orchestrator.checkout.Deadlines.HoldExpiry;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.CheckoutCancellationRequestedEvent;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.CheckoutPolicy;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.ManualReviewResolvedEvent;
import io.durablecheckout.api.checkout.OperatorRetryRequestedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeDisputedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.checkout.ProviderNotificationHeldEvent;
import io.durablecheckout.api.command.RearmOverdueTimersCommand;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.RecordProviderNotificationCommand;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Decision.Timer;
import io.durablecheckout.orchestrator.checkout.Deadlines.LeaseExpiry;
import io.durablecheckout.orchestrator.checkout.Deadlines.ObservedLeaseExpiry;
import io.durablecheckout.orchestrator.checkout.Deadlines.ReconciliationDue;
import io.durablecheckout.orchestrator.checkout.Deadlines.RetryDue;
import io.durablecheckout.orchestrator.checkout.Results.Outcome;
import io.durablecheckout.orchestrator.checkout.Run.Status;
import io.durablecheckout.orchestrator.checkout.Workflow.Result;
import io.durablecheckout.orchestrator.checkout.Workflow.Then;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Every decision of a checkout, as one pure function: {@code decide(input, facts, now)} gives the {@link Decision}
 * (events and timers) for a command or a fired timer, read against the {@link CheckoutFacts} its events say. The
 * workflow itself (each step's request, pending state and follow-ups, the compensations) is the {@link Workflow}
 * table; this class follows it and holds the rules around it, the same for every step:
 * <ul>
 *   <li>it grants every lease (operation id derived from the step, next attempt, next fencing token, expiry as a
 *       timer decided with the intent) and accepts a result only with the token of the lease in force;</li>
 *   <li>a heartbeat from the owner renews the lease; an expired lease or a failed attempt issues the step again under
 *       the same operation id until the attempts are used up, then the step is blocked in manual review;</li>
 *   <li>reconciliation, cancellation, manual review and provider notifications.</li>
 * </ul>
 * Deterministic: time is {@code now} (the command's or the timer's), ids derive from the checkout id and the step, and
 * the {@link WorkflowPolicy} is the one recorded when the checkout was created. No clock, random or I/O here.
 */
public final class CheckoutDecider {

    /** A way of deciding: this class's, or a test's variant of it (how a test shows a changed decision is caught). */
    @FunctionalInterface
    public interface Decide {
        Decision decide(Object input, CheckoutFacts facts, Instant now);
    }

    /** The facts as the events decided so far leave them: each decision reads what the previous one applied. */
    private CheckoutFacts s;
    private final List<CheckoutEvent> events = new ArrayList<>();
    private final List<Timer> cancel = new ArrayList<>();
    private final List<Timer> schedule = new ArrayList<>();
    /** The amount a tenant's capture call asks for, until its intent records it. */
    private Money captureAmount;

    private CheckoutDecider(CheckoutFacts facts) {
        this.s = facts;
    }

    /** Starts a checkout under the policy configured today (recorded in its first event). */
    public static Decision start(StartCheckoutCommand cmd, WorkflowPolicy configured) {
        return start(cmd, configured.recorded().capturing(cmd.capture() == null ? CaptureMode.ON_CONFIRMATION
                : cmd.capture()));
    }

    /** Starts a checkout under {@code recorded}, rules version included (replay: the history's own). */
    public static Decision start(StartCheckoutCommand cmd, CheckoutPolicy recorded) {
        if (cmd.items() == null || cmd.items().isEmpty()) {
            throw new IllegalCheckoutTransitionException("a checkout has at least one line item", null,
                    "A checkout needs at least one line item");
        }
        if (cmd.amount().minor() <= 0) {
            throw new IllegalCheckoutTransitionException("the amount is positive", null,
                    "The amount must be positive, was " + cmd.amount());
        }
        CheckoutDecider d = new CheckoutDecider(CheckoutFacts.INITIAL);
        d.apply(new CheckoutCreatedEvent(cmd.checkoutId(), cmd.tenantId(), List.copyOf(cmd.items()), cmd.amount(),
                cmd.paymentToken(), cmd.customerEmail(), cmd.idempotencyKey(), cmd.requestFingerprint(),
                cmd.requestedAt(), recorded, cmd.receipt()));
        d.issue(Workflow.STEPS.get(0).step(), cmd.requestedAt());
        return d.decision();
    }

    /** What {@code input} (a command other than the start, or a timer's payload) decides at {@code now}. */
    public static Decision decide(Object input, CheckoutFacts facts, Instant now) {
        CheckoutDecider d = new CheckoutDecider(facts);
        if (input instanceof RecordActivityResultCommand c) {
            d.record(c.result(), now);
        } else if (input instanceof RenewLeaseCommand c) {
            d.renew(c.heartbeat(), now);
        } else if (input instanceof RequestCancellationCommand c) {
            d.cancel(c);
        } else if (input instanceof ResolveManualReviewCommand c) {
            d.resolve(c);
        } else if (input instanceof RetryActivityCommand c) {
            d.retry(c);
        } else if (input instanceof RecordProviderNotificationCommand c) {
            d.notification(c);
        } else if (input instanceof CapturePaymentCommand c) {
            d.capture(c);
        } else if (input instanceof RefundPaymentCommand c) {
            d.refund(c);
        } else if (input instanceof SettleHoldCommand c) {
            d.settleHold(c);
        } else if (input instanceof HoldExpiry e) {
            d.holdExpired(e, now);
        } else if (input instanceof Deadlines.CustomerActionDue e) {
            d.customerActionDue(e, now);
        } else if (input instanceof LeaseExpiry e) {
            d.leaseExpired(e.step(), e.fencingToken(), true, now); // nothing observed: presumed passed (rules 1)
        } else if (input instanceof ObservedLeaseExpiry e) {
            d.leaseExpired(e.step(), e.fencingToken(), e.intentPassed(), now);
        } else if (input instanceof RetryDue e) {
            d.retryDue(e, now);
        } else if (input instanceof ReconciliationDue e) {
            d.reconciliationDue(e, now);
        } else if (input instanceof RearmOverdueTimersCommand) {
            d.rearm(now);
        } else {
            throw new IllegalArgumentException("not an input of a started checkout: " + input);
        }
        return d.decision();
    }

    // ------------------------------------------------------------------------------------------------ commands

    /**
     * Records what an activity reported and follows the table. Never refuses a late, duplicate or stale report: the
     * saga would retry it forever. A stale one is recorded as rejected; a duplicate of an applied one decides nothing.
     */
    private void record(ActivityResultEvent result, Instant now) {
        if (result instanceof StaleOwnerRejectedEvent) {
            return; // the resource refused a stale owner; the current owner reports on its own
        }
        Run run = s.run(result.step());
        FencingToken current = run == null ? null : run.lease().fencingToken();
        if (run == null || !run.lease().operationId().equals(result.operationId())
                || !result.fencingToken().equals(current)) {
            // Rule: only the owner of the lease in force may report (fencing at the aggregate).
            apply(new ActivityResultRejectedEvent(s.checkoutId(), result.step(), result.operationId(),
                    result.fencingToken(), current));
            return;
        }
        // Late evidence: the owner of the current lease reports after all (e.g. leases kept expiring); what it reports
        // settles the review as any other result would.
        boolean lateEvidence = Workflow.isLateEvidence(s.state(), s.blockedStep(), result.step(),
                run.status() == Status.BLOCKED, Results.isConclusive(result));
        if (!run.inFlight() && !lateEvidence) {
            return; // duplicate delivery of a result already applied
        }
        cancel.add(leaseTimer(result.step(), run.lease()));
        if (result instanceof ActivityAttemptFailedEvent failed) {
            retryOrReview(failed.step(), run, failed.detail(), now);
        } else if (s.operatorOperationOf(result.step())) {
            operatorOperationReported(Results.read(result, s.checkoutId(), s.run(Step.AUTHORIZE_PAYMENT).lease()), now);
        } else {
            Run authorization = s.run(Step.AUTHORIZE_PAYMENT);
            follow(Results.read(result, s.checkoutId(), authorization == null ? null : authorization.lease(),
                    now.plus(s.policy().customerActionTimeout())), now);
        }
    }

    /**
     * A heartbeat from the owner of the current lease extends it (new expiry, new timer). From anyone else it is
     * recorded as rejected: an expired lease is not revived, a newer owner is not displaced.
     */
    private void renew(ActivityHeartbeatEvent beat, Instant now) {
        Run run = s.run(beat.step());
        FencingToken current = run == null ? null : run.lease().fencingToken();
        boolean owner = run != null && run.lease().operationId().equals(beat.operationId())
                && beat.fencingToken().equals(current);
        if (owner && !run.inFlight()) {
            return; // the owner's heartbeat overtaken by its own result: nothing to renew, nobody stale
        }
        if (!owner) {
            apply(new ActivityResultRejectedEvent(s.checkoutId(), beat.step(), beat.operationId(), beat.fencingToken(),
                    current));
            return;
        }
        Instant expiresAt = now.plus(s.policy().leaseFor(beat.step()));
        if (!expiresAt.isAfter(run.lease().expiresAt())) {
            if (run.claimed()) {
                return; // an old heartbeat delivered late: the lease already reaches further
            }
            expiresAt = run.lease().expiresAt(); // the first word from the owner: recorded, so the lease now runs
        }
        cancel.add(leaseTimer(beat.step(), run.lease()));
        Lease renewed = run.leaseUntil(expiresAt);
        schedule.add(leaseTimer(beat.step(), renewed));
        apply(new ActivityLeaseRenewedEvent(s.checkoutId(), beat.step(), renewed));
    }

    private void cancel(RequestCancellationCommand cmd) {
        if (s.operatorOperationOpen()) {
            // a cancel now would refund (or void) beside an operation whose outcome is not known yet
            throw new IllegalCheckoutTransitionException("one operator payment operation at a time", s.state(),
                    "An operator's " + s.operatorOperation().step().slug() + " (" + s.operatorOperation().operationId()
                            + ") has not concluded yet: cancel once it has");
        }
        cancel(cmd.reason(), cmd.detail(), cmd.requestedAt());
    }

    private void cancel(CancellationReason reason, String detail, Instant now) {
        boolean operatorInReview = Workflow.operatorCancelOverridesEarlierRequest(s.state(),
                reason == CancellationReason.OPERATOR_REQUEST);
        if (s.isCompensatingOrCancelled() || (s.cancelRequested() && !operatorInReview)) {
            return; // already being undone: the request is satisfied, acknowledged idempotently
        }
        Run authorization = s.run(Step.AUTHORIZE_PAYMENT);
        boolean compensateNow = Workflow.compensatesOnCancel(s.state(), authorization != null && authorization.inFlight());
        apply(new CheckoutCancellationRequestedEvent(s.checkoutId(), reason, detail));
        if (!compensateNow) {
            return; // a step in flight concludes first; the table's cancelling column then compensates
        }
        if (s.state() == CheckoutState.MANUAL_REVIEW && s.blockedStep().isCompensation()) {
            issue(s.blockedStep(), now); // the compensation itself is stuck: try it again
        } else {
            // between authorization attempts, void under its operation id covers an earlier attempt; in a review,
            // "maybe authorized" is covered too: void and refund are idempotent by key
            compensate(null, now);
        }
    }

    /**
     * The tenant captures a deferred checkout's payment (all of it, or {@code amount} up to the authorized one). Asked
     * again for the same amount once requested, it changes nothing; any other capture request is refused.
     */
    private void capture(CapturePaymentCommand cmd) {
        if (s.rulesVersion() < WorkflowPolicy.CAPTURES) {
            throw new IllegalCheckoutTransitionException("a capture is called for under rules version 3 on", s.state(),
                    "This checkout was created before capture was a step (rules version " + s.rulesVersion()
                            + "): an operator captures or releases its hold (docs/operations.md, legacy holds)");
        }
        if (s.capture() != CaptureMode.DEFERRED) {
            throw new IllegalCheckoutTransitionException("only a deferred capture is called for", s.state(),
                    "This checkout is captured on confirmation; it needs no capture call");
        }
        Order order = s.order();
        Money amount = cmd.amount() == null ? order.amount() : cmd.amount();
        if (s.run(Step.CAPTURE_PAYMENT) != null) {
            if (!amount.equals(order.toCapture())) {
                throw new IllegalCheckoutTransitionException("a payment is captured once", s.state(),
                        "A capture of " + order.toCapture() + " was already requested for this checkout");
            }
            return; // the same capture asked again: acknowledged, nothing changes
        }
        if (s.state() != CheckoutState.AWAITING_CAPTURE) {
            throw new IllegalCheckoutTransitionException("a capture is called for in awaiting_capture", s.state(),
                    "Checkout is " + s.state().wireName() + ", not awaiting_capture");
        }
        if (!amount.currency().equals(order.amount().currency()) || amount.minor() <= 0
                || amount.minor() > order.amount().minor()) {
            throw new IllegalCheckoutTransitionException("a capture takes at most the authorized amount", s.state(),
                    "The capture amount must be positive, in " + order.amount().currency() + " and at most the "
                            + "authorized " + order.amount() + ", was " + amount);
        }
        captureAmount = amount;
        issue(Step.CAPTURE_PAYMENT, cmd.requestedAt());
    }

    /**
     * An operator returns part of what the capture took, under an operation id of its own (the n-th refund's); the
     * checkout stays completed. Refused (nothing changes) unless money was captured, in the checkout's currency, more
     * than nothing and at most what was captured less what refunds returned.
     */
    private void refund(RefundPaymentCommand cmd) {
        requireOperatorOperation();
        if (!s.captured()) {
            throw new IllegalCheckoutTransitionException("a refund returns money a capture took", s.state(),
                    "Nothing was captured for this checkout: there is nothing to refund");
        }
        Money remaining = s.refundable();
        Money amount = cmd.amount();
        if (amount == null || !amount.currency().equals(remaining.currency())) {
            throw new IllegalCheckoutTransitionException("a refund is in the currency captured", s.state(),
                    "The refund must be in " + remaining.currency() + ", was " + amount);
        }
        if (amount.minor() <= 0 || amount.minor() > remaining.minor()) {
            throw new IllegalCheckoutTransitionException("a refund returns at most what was captured and not refunded",
                    s.state(), "The refund must be more than 0 and at most the " + remaining + " captured and not "
                            + "refunded yet, was " + amount);
        }
        order(Step.REFUND_PAYMENT, Workflow.operatorRefundId(s.checkoutId(), s.operatorRefunds() + 1), amount,
                cmd.requestedAt());
    }

    /**
     * An operator captures or releases (voids) the hold of a checkout completed before capture was a step, under an
     * operation id of its own, through the same capture (or void) request the workflow's steps use.
     */
    private void settleHold(SettleHoldCommand cmd) {
        requireOperatorOperation();
        if (!Workflow.legacyHold(s)) {
            throw new IllegalCheckoutTransitionException("a legacy hold is an authorization completed under rules 2, "
                    + "neither captured nor released", s.state(), "This checkout holds no legacy authorization: "
                    + (s.rulesVersion() >= WorkflowPolicy.CAPTURES ? "it was created under rules version "
                    + s.rulesVersion() + ", whose capture step settles its payment" : "it was captured or released already"));
        }
        Step step = cmd.capture() ? Step.CAPTURE_PAYMENT : Step.VOID_PAYMENT;
        order(step, Workflow.legacyHoldId(s.checkoutId(), step), s.order().amount(), cmd.requestedAt());
    }

    private void requireOperatorOperation() {
        String refusal = Workflow.operatorOperationRefusal(s);
        if (refusal != null) {
            throw new IllegalCheckoutTransitionException(refusal, s.state(), s.operatorOperationOpen()
                    ? "An operator's " + s.operatorOperation().step().slug() + " (" + s.operatorOperation().operationId()
                            + ") has not concluded yet"
                    : "Checkout is " + s.state().wireName() + ", not completed");
        }
    }

    /** Records the operator's order and issues its first request. */
    private void order(Step step, OperationId operationId, Money amount, Instant now) {
        apply(new PaymentOperationOrderedEvent(s.checkoutId(), step, operationId, amount));
        issueOperatorOperation(now);
    }

    /**
     * What an operator's payment operation reported: a success (or a refusal for good) is recorded and leaves the
     * checkout completed (back to completed from a review its attempts ended in); an unknown outcome is asked again
     * under the same operation id.
     */
    private void operatorOperationReported(Outcome outcome, Instant now) {
        if (outcome.result() == Result.UNKNOWN) {
            retryOrReview(outcome.step(), s.run(outcome.step()), outcome.detail(), now);
            return;
        }
        apply(outcome.fact());
        if (s.state() == CheckoutState.MANUAL_REVIEW) {
            apply(new CheckoutCompletedEvent(s.checkoutId()));
        }
    }

    private void resolve(ResolveManualReviewCommand cmd) {
        if (s.disputeOpen() && s.state() != CheckoutState.MANUAL_REVIEW) {
            // Closing a dispute records the operator's finding; the recorded outcome and the workflow stand.
            apply(new ManualReviewResolvedEvent(s.checkoutId(), cmd.resolution(), cmd.providerReference(), cmd.note()));
            return;
        }
        requireManualReview("only a checkout in manual review or with a disputed payment can be resolved");
        if (s.blockedStep() != Step.AUTHORIZE_PAYMENT && s.blockedStep() != Step.RECONCILE_PAYMENT) {
            throw new IllegalCheckoutTransitionException("a resolution decides a payment outcome", s.state(),
                    "This checkout is blocked on " + s.blockedStep().slug()
                            + ", not on a payment outcome: retry or cancel it");
        }
        String reference = cmd.providerReference();
        if (cmd.resolution() == ManualResolution.AUTHORIZED && (reference == null || reference.isBlank())) {
            reference = s.heldAuthorizationReference(); // the provider's own word, held during the review, is evidence
        }
        if (cmd.resolution() == ManualResolution.AUTHORIZED && (reference == null || reference.isBlank())) {
            throw new IllegalCheckoutTransitionException("an authorization is resolved with the provider's reference",
                    s.state(), "Resolving as authorized needs the provider's reference as evidence");
        }
        apply(new ManualReviewResolvedEvent(s.checkoutId(), cmd.resolution(), reference, cmd.note()));
        Lease authorization = s.run(Step.AUTHORIZE_PAYMENT).lease();
        // Declined: the operator found no authorization, decided as a lookup's NOT_FOUND (the operation id is voided
        // first so a request still on its way cannot authorize later, then the stock is released).
        follow(cmd.resolution() == ManualResolution.AUTHORIZED
                ? Results.authorized(Step.AUTHORIZE_PAYMENT, s.checkoutId(), authorization, reference)
                : Results.declined(Step.RECONCILE_PAYMENT, Result.NOT_FOUND, s.checkoutId(), authorization,
                        "operator: " + cmd.note()), cmd.resolvedAt());
    }

    private void retry(RetryActivityCommand cmd) {
        requireManualReview("only a checkout in manual review is retried by an operator");
        Step step = s.blockedStep();
        apply(new OperatorRetryRequestedEvent(s.checkoutId(), step));
        if (step == Step.RECONCILE_PAYMENT) {
            scheduleLookup(cmd.requestedAt(), "operator retry");
        } else {
            reissue(step, cmd.requestedAt());
        }
    }

    private void notification(RecordProviderNotificationCommand cmd) {
        Run authorization = s.run(Step.AUTHORIZE_PAYMENT);
        if (authorization == null || !authorization.lease().operationId().equals(cmd.authorizationOperationId())) {
            throw new IllegalCheckoutTransitionException("a notification names this checkout's authorization",
                    s.state(), "No authorization " + cmd.authorizationOperationId() + " in checkout " + s.checkoutId());
        }
        ManualResolution reported = switch (cmd.outcome()) {
            case AUTHORIZED -> ManualResolution.AUTHORIZED;
            case DECLINED -> ManualResolution.DECLINED;
            default -> throw new IllegalCheckoutTransitionException("a notification reports a final outcome",
                    s.state(), "A provider notification must report AUTHORIZED or DECLINED, not " + cmd.outcome());
        };
        ManualResolution recorded = s.paymentOutcome();
        if (recorded == reported) {
            return; // duplicate, or late after reconciliation already learned the same: nothing changes
        }
        if (recorded == ManualResolution.AUTHORIZED && reported == ManualResolution.DECLINED
                && s.state() == CheckoutState.AWAITING_CAPTURE && holdUncollected()) {
            // The provider cancelled a hold that waits for the tenant's capture (expired, cancelled in its dashboard:
            // Stripe's payment_intent.canceled): nothing can be captured any more, so the checkout is cancelled as
            // when its hold lapses. Anywhere else a contradiction stays a dispute, as below.
            cancel(CancellationReason.HOLD_EXPIRED, "the provider cancelled the authorization (notification "
                    + cmd.notificationId() + ") before a capture was asked for", cmd.receivedAt());
            return;
        }
        if (reported == ManualResolution.DECLINED && s.run(Step.VOID_PAYMENT) != null) {
            return; // the provider reports the checkout's own void (Stripe: payment_intent.canceled), no contradiction
        }
        if (recorded != null) {
            // Rule: a notification never overrides a recorded outcome. The workflow keeps its course (it may be
            // completed or cancelled already); an operator looks at the dispute and, if money must move, cancels.
            apply(new PaymentOutcomeDisputedEvent(s.checkoutId(), recorded, reported, cmd.notificationId(),
                    cmd.providerReference()));
            return;
        }
        if (s.state() == CheckoutState.MANUAL_REVIEW || s.isCompensatingOrCancelled()) {
            // Rule: an operator or a compensation owns the checkout now, so the provider's word does not move it; it
            // is kept as evidence (shown to the operator, used when the review is resolved as authorized).
            if (!s.holdsNotification(cmd.notificationId())) {
                apply(new ProviderNotificationHeldEvent(s.checkoutId(), cmd.authorizationOperationId(), reported,
                        cmd.providerReference(), cmd.notificationId(), cmd.receivedAt()));
            }
            return;
        }
        // The outcome was unknown (in flight, timed out, or being reconciled): the provider's word settles it.
        follow(reported == ManualResolution.AUTHORIZED
                ? Results.authorized(Step.AUTHORIZE_PAYMENT, s.checkoutId(), authorization.lease(),
                        cmd.providerReference())
                : Results.declined(Step.AUTHORIZE_PAYMENT, Result.FAILED, s.checkoutId(), authorization.lease(),
                        "provider notification " + cmd.notificationId()), cmd.receivedAt());
    }

    // -------------------------------------------------------------------------------------------------- timers

    /**
     * Whether the decision on {@code expiry} reads whether the step's processor has passed the intent: the lease is
     * the one in force, nobody claimed it, and the checkout's rules say a queued intent waits. The shell asks its
     * {@link IntentProgress} only then, and hands the answer in as an {@link ObservedLeaseExpiry}.
     */
    public static boolean readsIntentProgress(LeaseExpiry expiry, CheckoutFacts facts) {
        Run run = facts.run(expiry.step());
        return facts.rulesVersion() >= WorkflowPolicy.QUEUED_INTENTS_WAIT && run != null && run.inFlight()
                && run.holds(expiry.fencingToken()) && !run.claimed();
    }

    private void leaseExpired(Step step, FencingToken token, boolean intentPassed, Instant dueAt) {
        LeaseExpiry expiry = new LeaseExpiry(step, token);
        Run run = s.run(expiry.step());
        if (run == null || !run.inFlight() || !run.holds(expiry.fencingToken())) {
            return; // the result arrived, or a newer lease is in force
        }
        if (!run.claimed() && s.rulesVersion() >= WorkflowPolicy.QUEUED_INTENTS_WAIT) {
            // Rule (version 2): a lease measures an owner's work, never a queue. Not passed: the step's processor has
            // not reached the intent, so nobody can have lost it; checked again a lease later, no attempt used, nothing
            // re-issued, however long the queue. Passed: the intent left the queue (taken, parked or lost), so its
            // lease runs from now, for the rest of max-attempts leases as version 1 allowed a claim or result on its
            // way (a busy saga); then it expires like a claimed one.
            int leases = intentPassed ? Math.max(1, s.policy().maxAttempts() - 1) : 1;
            Lease next = run.leaseUntil(dueAt.plus(s.policy().leaseFor(expiry.step()).multipliedBy(leases)));
            schedule.add(leaseTimer(expiry.step(), next));
            apply(intentPassed ? new ActivityLeaseRenewedEvent(s.checkoutId(), expiry.step(), next)
                    : new ActivityLeaseDeferredEvent(s.checkoutId(), expiry.step(), next));
            return;
        }
        if (!run.claimed() && run.deferrals() == 0) {
            // Rule: a lease runs while an owner holds it. No worker has said it holds this one (a worker that works
            // long, or is stuck, sends a heartbeat), so the intent, or its result, still waits in a queue: re-issuing
            // it would only queue a second copy. Deferred once, for the rest of max-attempts leases; if still nobody
            // has claimed it by then, the intent is presumed lost and re-issued like an expired lease.
            Lease waiting = run.leaseUntil(dueAt.plus(
                    s.policy().leaseFor(expiry.step()).multipliedBy(Math.max(1, s.policy().maxAttempts() - 1))));
            schedule.add(leaseTimer(expiry.step(), waiting));
            apply(new ActivityLeaseDeferredEvent(s.checkoutId(), expiry.step(), waiting));
            return;
        }
        apply(new ActivityLeaseExpiredEvent(s.checkoutId(), expiry.step(), run.lease()));
        Run expired = s.run(expiry.step());
        if (Workflow.attemptsUsedUp(expired.failures(), s.policy())) {
            apply(new ManualReviewRequiredEvent(s.checkoutId(), expiry.step(),
                    expiry.step().slug() + ": no result within " + expired.failures() + " leases",
                    "operation " + run.lease().operationId() + ", last attempt " + run.lease().attempt()
                            + " expired at " + run.lease().expiresAt()));
            return;
        }
        reissue(expiry.step(), dueAt); // same operation id, next token: the old owner is fenced out
    }

    /**
     * The timer watchdog found the checkout past its next deadline with no deadline row left (decision 135): every
     * timer the state still waits for is scheduled again, a retry or lookup due now, a lease, hold or customer's time
     * at its recorded end, and decides when it fires as it would have. Each timer's handler checks it against the
     * state, so one that was not lost after all fires twice and the second changes nothing. Appends nothing; a finished
     * checkout's runs are done and it waits for nothing.
     */
    private void rearm(Instant now) {
        for (Step step : Step.values()) {
            Run run = s.run(step);
            if (run == null) {
                continue;
            }
            if (run.status() == Status.WAITING_RETRY) {
                schedule.add(Timer.retry(step, run.lease().fencingToken(), now));
            } else if (run.inFlight()) {
                schedule.add(leaseTimer(step, run.lease()));
            }
        }
        if (s.state() == CheckoutState.RECONCILIATION_PENDING) {
            schedule.add(Timer.lookup(s.scheduledLookup(), now));
        }
        if (s.holdOpen()) {
            schedule.add(Timer.holdExpiry(s.holdExpiresAt()));
        }
        if (s.state() == CheckoutState.CUSTOMER_ACTION_REQUIRED) { // its until recorded by the event that set it
            schedule.add(Timer.customerAction(s.customerActionUntil()));
        }
    }

    private void retryDue(RetryDue due, Instant dueAt) {
        Run run = s.run(due.step());
        if (run == null || run.status() != Status.WAITING_RETRY || !run.holds(due.failedToken())) {
            return;
        }
        if (!due.step().isCompensation() && s.isCompensatingOrCancelled()) {
            return; // a cancellation took over between attempts (e.g. voided the authorization): never redo the step
        }
        reissue(due.step(), dueAt);
    }

    /**
     * The authorization's hold lapsed. Cancelled as a cancellation would be (void, stock release, notice) when no
     * capture was ever asked for; once one was, the provider's answer to it decides (a capture after the lapse is
     * declined by the provider, never guessed here). A checkout an operator holds, or already undone, is left alone.
     */
    private void holdExpired(HoldExpiry expiry, Instant dueAt) {
        if (!holdUncollected()) {
            return;
        }
        cancel(CancellationReason.HOLD_EXPIRED, "the authorization's hold lapsed at " + expiry.expiresAt()
                + " before a capture was asked for", dueAt);
    }

    /**
     * The customer's time to act is up: a payment still waiting for them is cancelled like a customer's cancel (the
     * void cancels the provider's intent, so a late authentication cannot take money; the stock is released).
     */
    private void customerActionDue(Deadlines.CustomerActionDue due, Instant dueAt) {
        if (s.state() != CheckoutState.CUSTOMER_ACTION_REQUIRED || s.paymentOutcome() != null) {
            return; // the provider's notification settled it, or a cancellation took over
        }
        cancel(CancellationReason.CUSTOMER_ACTION_TIMED_OUT, "the customer did not complete the payment's "
                + "authentication by " + due.until(), dueAt);
    }

    /**
     * The authorization is held and nothing was done with it yet: authorized (rules version 3), no capture asked for,
     * no cancellation, not an operator's review. Only then does the hold's end cancel the checkout by itself.
     */
    private boolean holdUncollected() {
        return s.rulesVersion() >= WorkflowPolicy.CAPTURES && s.paymentOutcome() == ManualResolution.AUTHORIZED
                && s.run(Step.CAPTURE_PAYMENT) == null && !s.captured() && !s.cancelRequested()
                && !s.isCompensatingOrCancelled() && s.state() != CheckoutState.MANUAL_REVIEW;
    }

    private void reconciliationDue(ReconciliationDue due, Instant dueAt) {
        if (s.state() == CheckoutState.RECONCILIATION_PENDING && due.lookupNumber() == s.scheduledLookup()) {
            issue(Step.RECONCILE_PAYMENT, dueAt);
        }
    }

    // ----------------------------------------------------------------------------------------------- the table

    /** Records an outcome and does what the workflow table says that outcome of that step leads to. */
    private void follow(Outcome outcome, Instant now) {
        if (outcome.fact() != null) {
            apply(outcome.fact());
        }
        then(Workflow.row(outcome.step(), s.rulesVersion()).follows(outcome.result(), s.cancelRequested()), outcome,
                now);
    }

    private void then(Then then, Outcome outcome, Instant now) {
        switch (then.move()) {
            case ISSUE -> issue(then.step(), now);
            case CONFIRM -> confirm(now);
            case CONTINUE -> continueAfter(outcome.step(), now);
            case RETRY -> retryOrReview(outcome.step(), s.run(outcome.step()), outcome.detail(), now);
            case AWAIT_CUSTOMER -> schedule.add(Timer.customerAction(
                    ((io.durablecheckout.api.checkout.CustomerActionRequiredEvent) outcome.fact()).until()));
            case COMPLETE -> {
                closeHold();
                apply(new CheckoutCompletedEvent(s.checkoutId()));
            }
            case COMPENSATE -> compensate(outcome.step(), now);
            case CANCEL -> {
                closeHold();
                apply(new CheckoutCancelledEvent(s.checkoutId(), outcome.reason(), outcome.detail()));
            }
            case RECONCILE -> scheduleLookup(now, outcome.detail());
            case LOOK_AGAIN -> lookAgain(outcome.detail(), now);
            case NONE -> {
            }
        }
        if (then.next() != null) {
            then(then.next(), outcome, now);
        }
    }

    /**
     * The order is confirmed; from rules version 3 on it records when the hold lapses, and a deferred capture gets that
     * lapse as a deadline (captured on confirmation, the capture is asked for at once: the lapse could decide nothing,
     * so no deadline is written and cancelled for it).
     */
    private void confirm(Instant now) {
        if (s.rulesVersion() < WorkflowPolicy.CAPTURES) {
            apply(new CheckoutConfirmedEvent(s.checkoutId()));
            return;
        }
        Instant holdExpiresAt = now.plus(s.policy().holdValidity());
        if (s.capture() == CaptureMode.DEFERRED) {
            schedule.add(Timer.holdExpiry(holdExpiresAt));
        }
        apply(new CheckoutConfirmedEvent(s.checkoutId(), holdExpiresAt));
    }

    /**
     * The next of what follows a confirmation after {@code concluded} (the authorization or its lookup: the first),
     * in the checkout's capture mode's order; completed when none is left. A deferred capture is not issued: the
     * checkout awaits the tenant's capture call.
     */
    private void continueAfter(Step concluded, Instant now) {
        List<Step> order = Workflow.afterConfirmation(s.capture(), s.rulesVersion());
        int next = order.indexOf(concluded) + 1; // -1 + 1: a payment step concluded, the first comes next
        if (next >= order.size()) {
            closeHold();
            apply(new CheckoutCompletedEvent(s.checkoutId()));
        } else if (order.get(next) == Step.CAPTURE_PAYMENT && s.capture() == CaptureMode.DEFERRED) {
            apply(new CaptureAwaitedEvent(s.checkoutId(), s.holdExpiresAt()));
        } else {
            issue(order.get(next), now);
        }
    }

    /** Issues the first compensation still owed after {@code concluded} (null: any); none left: cancelled. */
    private void compensate(Step concluded, Instant now) {
        Step next = Workflow.nextCompensation(concluded, s.compensationFacts());
        if (next != null) {
            issue(next, now);
        } else {
            closeHold();
            apply(new CheckoutCancelledEvent(s.checkoutId(), s.cancelReason(), s.cancelDetail()));
        }
    }

    /** Another lookup, unless the lookup budget is used up: then an operator decides. */
    private void lookAgain(String lastAnswer, Instant now) {
        if (Workflow.lookupsUsedUp(s.lookupsUsed(), s.policy())) {
            apply(new ManualReviewRequiredEvent(s.checkoutId(), Step.RECONCILE_PAYMENT,
                    "payment outcome still unknown after " + s.lookupsUsed() + " lookups",
                    "authorization operation " + s.run(Step.AUTHORIZE_PAYMENT).lease().operationId()
                            + "; last answer " + lastAnswer + "; the provider may still authorize or decline it"));
        } else {
            scheduleLookup(now, lastAnswer);
        }
    }

    private void scheduleLookup(Instant now, String lastAnswer) {
        int lookupNumber = s.scheduledLookup() + 1;
        Instant due = now.plus(s.policy().reconciliationDelay(s.lookupsUsed() + 1)); // the budget's n-th lookup
        schedule.add(Timer.lookup(lookupNumber, due));
        apply(new PaymentReconciliationScheduledEvent(s.checkoutId(),
                OperationId.of(s.checkoutId(), Step.AUTHORIZE_PAYMENT), lookupNumber, due, lastAnswer));
    }

    /** A failed attempt: tried again after a back-off, or blocked in manual review once the attempts are used up. */
    private void retryOrReview(Step step, Run run, String detail, Instant now) {
        if (Workflow.attemptsUsedUp(run.failures() + 1, s.policy())) {
            apply(new ManualReviewRequiredEvent(s.checkoutId(), step,
                    step.slug() + " failed " + (run.failures() + 1) + " times",
                    "operation " + run.lease().operationId() + "; last failure: " + detail));
            return;
        }
        Instant retryAt = now.plus(s.policy().retryDelay(run.failures() + 1));
        schedule.add(Timer.retry(step, run.lease().fencingToken(), retryAt));
        apply(new ActivityRetryScheduledEvent(s.checkoutId(), step, run.lease().operationId(), run.lease().attempt(),
                retryAt, detail));
    }

    /** Issues the latest run of {@code step} again: an operator's operation under its own id, else as {@link #issue}. */
    private void reissue(Step step, Instant now) {
        if (s.operatorOperationOf(step)) {
            issueOperatorOperation(now);
        } else {
            issue(step, now);
        }
    }

    /** Grants a lease for the operator's latest payment operation and sends its request. */
    private void issueOperatorOperation(Instant now) {
        io.durablecheckout.api.checkout.PaymentOperationOrderedEvent o = s.operatorOperation();
        apply((CheckoutEvent) Workflow.operatorRequest(o, s.order(), lease(o.step(), o.operationId(), now)));
    }

    /** Grants a lease for {@code step} and sends its request: same operation id as any earlier attempt, next token. */
    private void issue(Step step, Instant now) {
        Lease lease = lease(step, OperationId.of(s.checkoutId(), step), now);
        Order order = step == Step.CAPTURE_PAYMENT && captureAmount != null ? s.order().capturing(captureAmount)
                : s.order();
        apply((CheckoutEvent) Workflow.row(step).build().build(order, s.scheduledLookup(), lease));
    }

    /**
     * A lease of {@code operationId} for {@code step}, its expiry timer scheduled: the next attempt of the step's latest
     * operation if it is the same one, else its first; the step's next fencing token either way.
     */
    private Lease lease(Step step, OperationId operationId, Instant now) {
        Run previous = s.run(step);
        boolean same = previous != null && previous.lease().operationId().equals(operationId);
        int attempt = same ? previous.lease().attempt() + 1 : 1;
        FencingToken token = previous == null ? FencingToken.first() : previous.lease().fencingToken().next();
        Lease lease = new Lease(operationId, attempt, token, now.plus(s.policy().leaseFor(step)));
        schedule.add(leaseTimer(step, lease));
        return lease;
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** The checkout ends: the hold's deadline, if it has one, has nothing left to decide (cancelled, not left to fire). */
    private void closeHold() {
        if (s.holdOpen()) {
            cancel.add(Timer.holdExpiry(s.holdExpiresAt()));
        }
    }

    private static Timer leaseTimer(Step step, Lease lease) {
        return Timer.leaseExpiry(step, lease.fencingToken(), lease.expiresAt());
    }

    private void requireManualReview(String rule) {
        if (s.state() != CheckoutState.MANUAL_REVIEW) {
            throw new IllegalCheckoutTransitionException(rule, s.state(),
                    "Checkout is " + s.state().wireName() + ", not manual_review");
        }
    }

    private void apply(CheckoutEvent event) {
        events.add(event);
        s = s.evolve(event);
    }

    private Decision decision() {
        return new Decision(events, cancel, schedule);
    }
}
