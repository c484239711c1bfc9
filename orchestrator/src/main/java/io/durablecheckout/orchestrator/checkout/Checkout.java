package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.CheckoutCancellationRequestedEvent;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.ManualReviewResolvedEvent;
import io.durablecheckout.api.checkout.OperatorRetryRequestedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeDisputedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.checkout.ProviderNotificationHeldEvent;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.RecordProviderNotificationCommand;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Deadlines.ReconciliationDue;
import io.durablecheckout.orchestrator.checkout.Results.Outcome;
import io.durablecheckout.orchestrator.checkout.Run.Status;
import io.durablecheckout.orchestrator.checkout.Workflow.Result;
import io.durablecheckout.orchestrator.checkout.Workflow.Then;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.deadline.annotation.DeadlineHandler;
import org.axonframework.eventhandling.Timestamp;
import org.axonframework.spring.stereotype.Aggregate;

import java.time.Instant;
import java.util.List;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

/**
 * One checkout's workflow: the state machine and the fencing authority. The workflow itself (each step's request,
 * the state it is pending in, what each result leads to, the compensations) is the {@link Workflow} table; this
 * class follows it, and holds the rules around it: it issues every lease (operation id, attempt, fencing token,
 * expiry), schedules the lease's expiry as a durable deadline in the same unit of work as the intent, accepts a
 * result only if it carries the token of the lease in force, and handles retries, reconciliation, cancellation,
 * manual review and provider notifications.
 * <p>
 * Deterministic: time comes from the command or the deadline, ids are derived from the checkout id and the step,
 * and the {@link WorkflowPolicy} is the one recorded when the checkout was created, not the configuration of the
 * day. No clock, random or I/O here.
 */
@Aggregate(type = Checkout.TYPE, commandTargetResolver = "checkoutCommandTargetResolver") // decisions.md §60
public class Checkout extends CheckoutLeases {

    public static final String TYPE = "Checkout";

    protected Checkout() {
        // for Axon: rebuilt from events
    }

    // ------------------------------------------------------------------------------------------------ commands

    @CommandHandler
    public Checkout(StartCheckoutCommand cmd, DeadlineManager deadlines, WorkflowPolicy configured) {
        if (cmd.items() == null || cmd.items().isEmpty()) {
            throw new IllegalCheckoutTransitionException("a checkout has at least one line item", null,
                    "A checkout needs at least one line item");
        }
        if (cmd.amount().minor() <= 0) {
            throw new IllegalCheckoutTransitionException("the amount is positive", null,
                    "The amount must be positive, was " + cmd.amount());
        }
        apply(new CheckoutCreatedEvent(cmd.checkoutId(), cmd.tenantId(), List.copyOf(cmd.items()), cmd.amount(),
                cmd.paymentToken(), cmd.customerEmail(), cmd.idempotencyKey(), cmd.requestFingerprint(),
                cmd.requestedAt(), configured.recorded()))
                // In a constructor Axon applies events after the handler returns; andThen runs once it is applied.
                .andThen(() -> issue(Workflow.STEPS.get(0).step(), cmd.requestedAt(), deadlines));
    }

    /**
     * Records what an activity reported and follows the table. Never throws for a late, duplicate or stale report:
     * the saga would retry it forever. A stale one is recorded as rejected; a duplicate of an applied one is
     * acknowledged with no event.
     */
    @CommandHandler
    public void handle(RecordActivityResultCommand cmd, DeadlineManager deadlines) {
        ActivityResultEvent result = cmd.result();
        if (result instanceof StaleOwnerRejectedEvent) {
            return; // the resource refused a stale owner; the current owner reports on its own
        }
        Run run = runs.get(result.step());
        FencingToken current = run == null ? null : run.lease.fencingToken();
        boolean sameOperation = run != null && run.lease.operationId().equals(result.operationId());
        if (!sameOperation || !result.fencingToken().equals(current)) {
            // Rule: only the owner of the lease in force may report (fencing at the aggregate).
            apply(new ActivityResultRejectedEvent(checkoutId, result.step(), result.operationId(),
                    result.fencingToken(), current));
            return;
        }
        boolean lateEvidence = run.status == Status.BLOCKED && state == CheckoutState.MANUAL_REVIEW
                && result.step() == blockedStep && Results.isConclusive(result);
        if (!run.inFlight() && !lateEvidence) {
            return; // duplicate delivery of a result already applied
        }
        // lateEvidence: the owner of the current lease reports after all (e.g. leases kept expiring); what it
        // reports settles the review as any other result would.
        if (run.leaseDeadlineId != null) {
            deadlines.cancelSchedule(Deadlines.LEASE_EXPIRED, run.leaseDeadlineId);
        }
        if (result instanceof ActivityAttemptFailedEvent failed) {
            retryOrReview(failed.step(), run, failed.detail(), cmd.observedAt(), deadlines);
        } else {
            Run authorization = runs.get(Step.AUTHORIZE_PAYMENT);
            decide(Results.read(result, checkoutId, authorization == null ? null : authorization.lease),
                    cmd.observedAt(), deadlines);
        }
    }

    @CommandHandler
    public void handle(RequestCancellationCommand cmd, DeadlineManager deadlines) {
        if (cancelRequested || isCompensatingOrCancelled()) {
            return; // already being undone: the request is satisfied, acknowledged idempotently
        }
        apply(new CheckoutCancellationRequestedEvent(checkoutId, cmd.reason(), cmd.detail()));
        boolean authorizing = state == CheckoutState.STOCK_RESERVED && runs.get(Step.AUTHORIZE_PAYMENT).inFlight();
        if (!Workflow.COMPENSATE_ON_CANCEL.containsKey(state) || authorizing) {
            return; // a step in flight concludes first; the table's cancelling column then compensates
        }
        if (state == CheckoutState.MANUAL_REVIEW && blockedStep.isCompensation()) {
            issue(blockedStep, cmd.requestedAt(), deadlines); // the compensation itself is stuck: try it again
        } else {
            // between authorization attempts, void under its operation id covers an earlier attempt; in a review,
            // "maybe authorized" is covered too: void and refund are idempotent by key
            compensate(null, cmd.requestedAt(), deadlines);
        }
    }

    @CommandHandler
    public void handle(ResolveManualReviewCommand cmd, DeadlineManager deadlines) {
        if (disputeOpen && state != CheckoutState.MANUAL_REVIEW) {
            // Closing a dispute records the operator's finding; the recorded outcome and the workflow stand.
            apply(new ManualReviewResolvedEvent(checkoutId, cmd.resolution(), cmd.providerReference(), cmd.note()));
            return;
        }
        requireManualReview("only a checkout in manual review or with a disputed payment can be resolved");
        if (blockedStep != Step.AUTHORIZE_PAYMENT && blockedStep != Step.RECONCILE_PAYMENT) {
            throw new IllegalCheckoutTransitionException("a resolution decides a payment outcome", state,
                    "This checkout is blocked on " + blockedStep.slug() + ", not on a payment outcome: retry or cancel it");
        }
        String reference = cmd.providerReference();
        if (cmd.resolution() == ManualResolution.AUTHORIZED && (reference == null || reference.isBlank())) {
            reference = heldAuthorizationReference(); // the provider's own word, held during the review, is evidence
        }
        if (cmd.resolution() == ManualResolution.AUTHORIZED && (reference == null || reference.isBlank())) {
            throw new IllegalCheckoutTransitionException("an authorization is resolved with the provider's reference",
                    state, "Resolving as authorized needs the provider's reference as evidence");
        }
        apply(new ManualReviewResolvedEvent(checkoutId, cmd.resolution(), reference, cmd.note()));
        Lease authorization = runs.get(Step.AUTHORIZE_PAYMENT).lease;
        // Declined: the operator found no authorization, decided as a lookup's NOT_FOUND (the operation id is voided
        // first so a request still on its way cannot authorize later, then the stock is released).
        decide(cmd.resolution() == ManualResolution.AUTHORIZED
                ? Results.authorized(Step.AUTHORIZE_PAYMENT, checkoutId, authorization, reference)
                : Results.declined(Step.RECONCILE_PAYMENT, Result.NOT_FOUND, checkoutId, authorization,
                        "operator: " + cmd.note()), cmd.resolvedAt(), deadlines);
    }

    @CommandHandler
    public void handle(RetryActivityCommand cmd, DeadlineManager deadlines) {
        requireManualReview("only a checkout in manual review is retried by an operator");
        Step step = blockedStep;
        apply(new OperatorRetryRequestedEvent(checkoutId, step));
        if (step == Step.RECONCILE_PAYMENT) {
            scheduleLookup(scheduledLookup + 1, cmd.requestedAt(), "operator retry", deadlines);
        } else {
            issue(step, cmd.requestedAt(), deadlines);
        }
    }

    @CommandHandler
    public void handle(RecordProviderNotificationCommand cmd, DeadlineManager deadlines) {
        Run authorization = runs.get(Step.AUTHORIZE_PAYMENT);
        if (authorization == null || !authorization.lease.operationId().equals(cmd.authorizationOperationId())) {
            throw new IllegalCheckoutTransitionException("a notification names this checkout's authorization", state,
                    "No authorization " + cmd.authorizationOperationId() + " in checkout " + checkoutId);
        }
        ManualResolution reported = switch (cmd.outcome()) {
            case AUTHORIZED -> ManualResolution.AUTHORIZED;
            case DECLINED -> ManualResolution.DECLINED;
            default -> throw new IllegalCheckoutTransitionException("a notification reports a final outcome", state,
                    "A provider notification must report AUTHORIZED or DECLINED, not " + cmd.outcome());
        };
        if (paymentOutcome == reported) {
            return; // duplicate, or late after reconciliation already learned the same: nothing changes
        }
        if (paymentOutcome != null) {
            // Rule: a notification never overrides a recorded outcome. The workflow keeps its course (it may be
            // completed or cancelled already); an operator looks at the dispute and, if money must move, cancels.
            apply(new PaymentOutcomeDisputedEvent(checkoutId, paymentOutcome, reported, cmd.notificationId(),
                    cmd.providerReference()));
            return;
        }
        if (state == CheckoutState.MANUAL_REVIEW || isCompensatingOrCancelled()) {
            // Rule: an operator or a compensation owns the checkout now, so the provider's word does not move it; it
            // is kept as evidence (shown to the operator, used when the review is resolved as authorized).
            if (!heldNotifications.containsKey(cmd.notificationId())) {
                apply(new ProviderNotificationHeldEvent(checkoutId, cmd.authorizationOperationId(), reported,
                        cmd.providerReference(), cmd.notificationId(), cmd.receivedAt()));
            }
            return;
        }
        // The outcome was unknown (in flight, timed out, or being reconciled): the provider's word settles it.
        decide(reported == ManualResolution.AUTHORIZED
                ? Results.authorized(Step.AUTHORIZE_PAYMENT, checkoutId, authorization.lease, cmd.providerReference())
                : Results.declined(Step.AUTHORIZE_PAYMENT, Result.FAILED, checkoutId, authorization.lease,
                        "provider notification " + cmd.notificationId()), cmd.receivedAt(), deadlines);
    }

    // ----------------------------------------------------------------------------------------------- deadlines

    @DeadlineHandler(deadlineName = Deadlines.RECONCILIATION_DUE)
    public void onReconciliationDue(ReconciliationDue due, @Timestamp Instant dueAt, DeadlineManager deadlines) {
        if (state != CheckoutState.RECONCILIATION_PENDING || due.lookupNumber() != scheduledLookup) {
            return;
        }
        issue(Step.RECONCILE_PAYMENT, dueAt, deadlines);
    }

    // ----------------------------------------------------------------------------------------------- decisions

    /** Records an outcome and does what the workflow table says that outcome of that step leads to. */
    private void decide(Outcome outcome, Instant now, DeadlineManager deadlines) {
        if (outcome.fact() != null) {
            apply(outcome.fact());
        }
        follow(Workflow.row(outcome.step()).follows(outcome.result(), cancelRequested), outcome, now, deadlines);
    }

    private void follow(Then then, Outcome outcome, Instant now, DeadlineManager deadlines) {
        switch (then.move()) {
            case ISSUE -> issue(then.step(), now, deadlines);
            case CONFIRM -> apply(new CheckoutConfirmedEvent(checkoutId));
            case COMPLETE -> apply(new CheckoutCompletedEvent(checkoutId));
            case COMPENSATE -> compensate(outcome.step(), now, deadlines);
            case CANCEL -> apply(new CheckoutCancelledEvent(checkoutId, outcome.reason(), outcome.detail()));
            case RECONCILE -> scheduleLookup(scheduledLookup + 1, now, outcome.detail(), deadlines);
            case LOOK_AGAIN -> lookAgain(outcome.detail(), now, deadlines);
            case NONE -> {
            }
        }
        if (then.next() != null) {
            follow(then.next(), outcome, now, deadlines);
        }
    }

    /** Issues the first compensation still owed after {@code concluded} (null: any); none left: cancelled. */
    private void compensate(Step concluded, Instant now, DeadlineManager deadlines) {
        Step next = Workflow.nextCompensation(concluded, compensationFacts());
        if (next != null) {
            issue(next, now, deadlines);
        } else {
            apply(new CheckoutCancelledEvent(checkoutId, cancelReason, cancelDetail));
        }
    }

    private void lookAgain(String lastAnswer, Instant now, DeadlineManager deadlines) {
        if (scheduledLookup - lookupBudgetStart >= policy.reconciliationMaxLookups()) {
            apply(new ManualReviewRequiredEvent(checkoutId, Step.RECONCILE_PAYMENT,
                    "payment outcome still unknown after " + (scheduledLookup - lookupBudgetStart) + " lookups",
                    "authorization operation " + runs.get(Step.AUTHORIZE_PAYMENT).lease.operationId()
                            + "; last answer " + lastAnswer + "; the provider may still authorize or decline it"));
        } else {
            scheduleLookup(scheduledLookup + 1, now, lastAnswer, deadlines);
        }
    }

    private void scheduleLookup(int lookupNumber, Instant now, String lastAnswer, DeadlineManager deadlines) {
        Instant due = now.plus(policy.reconciliationDelay(lookupNumber - lookupBudgetStart));
        deadlines.schedule(due, Deadlines.RECONCILIATION_DUE, new ReconciliationDue(lookupNumber), scope());
        apply(new PaymentReconciliationScheduledEvent(checkoutId, OperationId.of(checkoutId, Step.AUTHORIZE_PAYMENT),
                lookupNumber, due, lastAnswer));
    }
}
