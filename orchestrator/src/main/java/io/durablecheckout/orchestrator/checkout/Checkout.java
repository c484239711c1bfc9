package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.CancellationNoticeDeliverySucceededEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationDeclinedEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationOutcomeUnknownEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationSucceededEvent;
import io.durablecheckout.api.activity.PaymentLookupAnsweredEvent;
import io.durablecheckout.api.activity.PaymentRefundSucceededEvent;
import io.durablecheckout.api.activity.PaymentVoidSucceededEvent;
import io.durablecheckout.api.activity.ReceiptDeliverySucceededEvent;
import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.activity.StockReleaseSucceededEvent;
import io.durablecheckout.api.activity.StockReservationRejectedEvent;
import io.durablecheckout.api.activity.StockReservationSucceededEvent;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.ActivityLeaseDeferredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.CancellationNoticeRequestedEvent;
import io.durablecheckout.api.checkout.CancellationNoticeSentEvent;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.CheckoutCancellationRequestedEvent;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.ManualReviewResolvedEvent;
import io.durablecheckout.api.checkout.OperatorRetryRequestedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentDeclinedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeDisputedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeUnknownEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.checkout.PaymentRefundRequestedEvent;
import io.durablecheckout.api.checkout.PaymentRefundedEvent;
import io.durablecheckout.api.checkout.PaymentVoidRequestedEvent;
import io.durablecheckout.api.checkout.PaymentVoidedEvent;
import io.durablecheckout.api.checkout.ProviderNotificationHeldEvent;
import io.durablecheckout.api.checkout.ReceiptRequestedEvent;
import io.durablecheckout.api.checkout.ReceiptSentEvent;
import io.durablecheckout.api.checkout.StockReleaseRequestedEvent;
import io.durablecheckout.api.checkout.StockReleasedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.checkout.StockReservedEvent;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.RecordProviderNotificationCommand;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.checkout.Deadlines.LeaseExpiry;
import io.durablecheckout.orchestrator.checkout.Deadlines.ReconciliationDue;
import io.durablecheckout.orchestrator.checkout.Deadlines.RetryDue;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.deadline.annotation.DeadlineHandler;
import org.axonframework.eventhandling.Timestamp;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.messaging.MetaData;
import org.axonframework.messaging.ScopeDescriptor;
import org.axonframework.messaging.annotation.MetaDataValue;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.AggregateScopeDescriptor;
import org.axonframework.spring.stereotype.Aggregate;

import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

/**
 * One checkout's workflow: the state machine and the fencing authority. It issues every lease (operation id, attempt,
 * fencing token, expiry), schedules the lease's expiry as a durable deadline in the same unit of work as the intent,
 * and accepts a result only if it carries the token of the lease currently in force.
 * <p>
 * Deterministic: time comes from the command or the deadline, ids are derived from the checkout id and the step,
 * and the {@link WorkflowPolicy} is the one recorded when the checkout was created, not the configuration of the
 * day. No clock, random or I/O here.
 */
@Aggregate(type = Checkout.TYPE)
public class Checkout {

    public static final String TYPE = "Checkout";

    @AggregateIdentifier
    private CheckoutId checkoutId;
    private TenantId tenantId;
    private List<LineItem> items;
    private Money amount;
    private String paymentToken;
    private String customerEmail;
    private CheckoutState state;
    private final Map<Step, Run> runs = new EnumMap<>(Step.class);
    private boolean cancelRequested;
    private CancellationReason cancelReason;
    private String cancelDetail;
    private boolean receiptSent;
    private int scheduledLookup;
    private int lookupBudgetStart;
    private Step blockedStep;
    /** The payment outcome once known from any evidence (worker, lookup, provider notification, operator). */
    private ManualResolution paymentOutcome;
    /** A provider notification contradicted the recorded outcome and no operator has looked at it yet. */
    private boolean disputeOpen;
    /** Notifications kept as evidence while the checkout was not the provider's to settle, by notification id. */
    private final Map<String, ProviderNotificationHeldEvent> heldNotifications = new LinkedHashMap<>();
    /** Fixed when the checkout was created (recorded in its first event); never the current configuration. */
    private WorkflowPolicy policy;

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
                .andThen(() -> issue(Step.RESERVE_STOCK, cmd.requestedAt(), deadlines, policy));
    }

    /**
     * Records what an activity reported. Never throws for a late, duplicate or stale report: the saga would retry it
     * forever. A stale one is recorded as rejected; a duplicate of an applied one is acknowledged with no event.
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
        boolean lateEvidence = run.status == RunStatus.BLOCKED && state == CheckoutState.MANUAL_REVIEW
                && result.step() == blockedStep && isConclusive(result);
        if (run.status != RunStatus.IN_FLIGHT && !lateEvidence) {
            return; // duplicate delivery of a result already applied
        }
        // lateEvidence: the owner of the current lease reports after all (e.g. leases kept expiring); what it
        // reports settles the review as any other result would.
        if (run.leaseDeadlineId != null) {
            deadlines.cancelSchedule(Deadlines.LEASE_EXPIRED, run.leaseDeadlineId);
        }
        Instant now = cmd.observedAt();
        if (result instanceof StockReservationSucceededEvent r) {
            apply(new StockReservedEvent(checkoutId, r.operationId(), r.fencingToken()));
            issue(cancelRequested ? Step.RELEASE_STOCK : Step.AUTHORIZE_PAYMENT, now, deadlines, policy);
        } else if (result instanceof StockReservationRejectedEvent r) {
            apply(new CheckoutCancelledEvent(checkoutId, r.reason(), r.detail()));
        } else if (result instanceof PaymentAuthorizationSucceededEvent r) {
            authorized(r.operationId(), r.fencingToken(), r.providerReference(), now, deadlines, policy);
        } else if (result instanceof PaymentAuthorizationDeclinedEvent r) {
            declined(r.operationId(), r.fencingToken(), r.reason(), now, deadlines, policy);
        } else if (result instanceof PaymentAuthorizationOutcomeUnknownEvent r) {
            // A timeout is unknown, never a decline: ask the provider later under the same operation id.
            apply(new PaymentOutcomeUnknownEvent(checkoutId, r.operationId(), r.fencingToken(), r.reason()));
            scheduleLookup(scheduledLookup + 1, now, r.reason(), deadlines, policy);
        } else if (result instanceof PaymentLookupAnsweredEvent r) {
            onLookupAnswer(r, now, deadlines, policy);
        } else if (result instanceof PaymentVoidSucceededEvent r) {
            apply(new PaymentVoidedEvent(checkoutId, r.operationId(), r.fencingToken(), r.providerReference()));
            issue(Step.RELEASE_STOCK, now, deadlines, policy);
        } else if (result instanceof PaymentRefundSucceededEvent r) {
            apply(new PaymentRefundedEvent(checkoutId, r.operationId(), r.fencingToken(), r.providerReference()));
            issue(Step.RELEASE_STOCK, now, deadlines, policy);
        } else if (result instanceof StockReleaseSucceededEvent r) {
            apply(new StockReleasedEvent(checkoutId, r.operationId(), r.fencingToken()));
            if (runs.containsKey(Step.SEND_RECEIPT)) {
                // a receipt was (or may have been) sent, and cannot be unsent: announce the cancellation
                issue(Step.SEND_CANCELLATION_NOTICE, now, deadlines, policy);
            } else {
                apply(new CheckoutCancelledEvent(checkoutId, cancelReason, cancelDetail));
            }
        } else if (result instanceof CancellationNoticeDeliverySucceededEvent r) {
            apply(new CancellationNoticeSentEvent(checkoutId, r.operationId(), r.fencingToken()));
            apply(new CheckoutCancelledEvent(checkoutId, cancelReason, cancelDetail));
        } else if (result instanceof ReceiptDeliverySucceededEvent r) {
            apply(new ReceiptSentEvent(checkoutId, r.operationId(), r.fencingToken()));
            apply(new CheckoutCompletedEvent(checkoutId));
            if (cancelRequested) {
                issue(Step.REFUND_PAYMENT, now, deadlines, policy);
            }
        } else if (result instanceof ActivityAttemptFailedEvent r) {
            onAttemptFailed(r.step(), run, r.detail(), now, deadlines, policy);
        } else {
            throw new IllegalStateException("Unhandled activity result " + result.getClass().getName());
        }
    }

    @CommandHandler
    public void handle(RequestCancellationCommand cmd, DeadlineManager deadlines) {
        if (cancelRequested || isCompensatingOrCancelled()) {
            return; // already being undone: the request is satisfied, acknowledged idempotently
        }
        apply(new CheckoutCancellationRequestedEvent(checkoutId, cmd.reason(), cmd.detail()));
        Instant now = cmd.requestedAt();
        switch (state) {
            // A step in flight concludes first; its result handler then compensates (see the cancelRequested checks).
            case CREATED, PAYMENT_UNKNOWN, RECONCILIATION_PENDING, CONFIRMED, PAYMENT_AUTHORIZED -> {
            }
            case STOCK_RESERVED -> {
                if (runs.get(Step.AUTHORIZE_PAYMENT).status != RunStatus.IN_FLIGHT) {
                    // The authorization is between attempts; void under its operation id covers an earlier attempt.
                    issue(Step.VOID_PAYMENT, now, deadlines, policy);
                }
            }
            case COMPLETED -> issue(Step.REFUND_PAYMENT, now, deadlines, policy);
            case MANUAL_REVIEW -> compensateFromManualReview(now, deadlines, policy);
            default -> throw new IllegalStateException("cancellation not expected in state " + state);
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
            // The provider's own notification, held during the review, is evidence enough: it is applied.
            reference = heldNotifications.values().stream()
                    .filter(n -> n.reportedOutcome() == ManualResolution.AUTHORIZED && n.providerReference() != null)
                    .map(ProviderNotificationHeldEvent::providerReference).reduce((first, last) -> last).orElse(null);
        }
        if (cmd.resolution() == ManualResolution.AUTHORIZED && (reference == null || reference.isBlank())) {
            throw new IllegalCheckoutTransitionException("an authorization is resolved with the provider's reference",
                    state, "Resolving as authorized needs the provider's reference as evidence");
        }
        apply(new ManualReviewResolvedEvent(checkoutId, cmd.resolution(), reference, cmd.note()));
        Lease authorization = runs.get(Step.AUTHORIZE_PAYMENT).lease;
        if (cmd.resolution() == ManualResolution.AUTHORIZED) {
            authorized(authorization.operationId(), authorization.fencingToken(), reference,
                    cmd.resolvedAt(), deadlines, policy);
        } else {
            // The operator found no authorization; like a lookup's NOT_FOUND, void the operation id first so a
            // request still on its way cannot authorize later, then release the stock.
            apply(new PaymentDeclinedEvent(checkoutId, authorization.operationId(), authorization.fencingToken(),
                    "operator: " + cmd.note()));
            issue(Step.VOID_PAYMENT, cmd.resolvedAt(), deadlines, policy);
        }
    }

    @CommandHandler
    public void handle(RetryActivityCommand cmd, DeadlineManager deadlines) {
        requireManualReview("only a checkout in manual review is retried by an operator");
        Step step = blockedStep;
        apply(new OperatorRetryRequestedEvent(checkoutId, step));
        if (step == Step.RECONCILE_PAYMENT) {
            scheduleLookup(scheduledLookup + 1, cmd.requestedAt(), "operator retry", deadlines, policy);
        } else {
            issue(step, cmd.requestedAt(), deadlines, policy);
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
        if (reported == ManualResolution.AUTHORIZED) {
            authorized(authorization.lease.operationId(), authorization.lease.fencingToken(), cmd.providerReference(),
                    cmd.receivedAt(), deadlines, policy);
        } else {
            declined(authorization.lease.operationId(), authorization.lease.fencingToken(),
                    "provider notification " + cmd.notificationId(), cmd.receivedAt(), deadlines, policy);
        }
    }

    /**
     * A heartbeat from the owner of the current lease extends it (new expiry, new deadline). From anyone else it is
     * recorded as rejected: an expired lease is not revived, a newer owner is not displaced.
     */
    @CommandHandler
    public void handle(RenewLeaseCommand cmd, DeadlineManager deadlines) {
        ActivityHeartbeatEvent beat = cmd.heartbeat();
        Run run = runs.get(beat.step());
        FencingToken current = run == null ? null : run.lease.fencingToken();
        if (run != null && run.status != RunStatus.IN_FLIGHT && beat.fencingToken().equals(current)
                && run.lease.operationId().equals(beat.operationId())) {
            return; // the owner's heartbeat overtaken by its own result: nothing to renew, nobody stale
        }
        if (run == null || run.status != RunStatus.IN_FLIGHT || !run.lease.operationId().equals(beat.operationId())
                || !beat.fencingToken().equals(current)) {
            apply(new ActivityResultRejectedEvent(checkoutId, beat.step(), beat.operationId(), beat.fencingToken(),
                    current));
            return;
        }
        Instant expiresAt = cmd.observedAt().plus(policy.leaseFor(beat.step()));
        if (!expiresAt.isAfter(run.lease.expiresAt())) {
            if (run.claimed) {
                return; // an old heartbeat delivered late: the lease already reaches further
            }
            expiresAt = run.lease.expiresAt(); // the first word from the owner: recorded, so the lease now runs
        }
        if (run.leaseDeadlineId != null) {
            deadlines.cancelSchedule(Deadlines.LEASE_EXPIRED, run.leaseDeadlineId);
        }
        Lease renewed = new Lease(run.lease.operationId(), run.lease.attempt(), run.lease.fencingToken(), expiresAt);
        String deadlineId = deadlines.schedule(expiresAt, Deadlines.LEASE_EXPIRED,
                new LeaseExpiry(beat.step(), renewed.fencingToken()), scope());
        apply(new ActivityLeaseRenewedEvent(checkoutId, beat.step(), renewed),
                MetaData.with(Deadlines.LEASE_DEADLINE_ID, deadlineId));
    }

    // ----------------------------------------------------------------------------------------------- deadlines

    @DeadlineHandler(deadlineName = Deadlines.LEASE_EXPIRED)
    public void onLeaseExpired(LeaseExpiry expiry, @Timestamp Instant dueAt, DeadlineManager deadlines) {
        Run run = runs.get(expiry.step());
        if (run == null || run.status != RunStatus.IN_FLIGHT || !run.lease.fencingToken().equals(expiry.fencingToken())) {
            return; // the result arrived, or a newer lease is in force
        }
        if (!run.claimed && run.deferrals == 0) {
            // Rule: a lease runs while an owner holds it. No worker has said it holds this one (a worker that works
            // long, or is stuck, sends a heartbeat), so the intent, or its result, still waits in a queue: re-issuing
            // it would only queue a second copy. Deferred once, for the rest of max-attempts leases; if still nobody
            // has claimed it by then, the intent is presumed lost and re-issued like an expired lease.
            Lease waiting = new Lease(run.lease.operationId(), run.lease.attempt(), run.lease.fencingToken(),
                    dueAt.plus(policy.leaseFor(expiry.step()).multipliedBy(Math.max(1, policy.maxAttempts() - 1))));
            String deadlineId = deadlines.schedule(waiting.expiresAt(), Deadlines.LEASE_EXPIRED,
                    new LeaseExpiry(expiry.step(), waiting.fencingToken()), scope());
            apply(new ActivityLeaseDeferredEvent(checkoutId, expiry.step(), waiting),
                    MetaData.with(Deadlines.LEASE_DEADLINE_ID, deadlineId));
            return;
        }
        apply(new ActivityLeaseExpiredEvent(checkoutId, expiry.step(), run.lease));
        if (run.failures >= policy.maxAttempts()) {
            apply(new ManualReviewRequiredEvent(checkoutId, expiry.step(),
                    expiry.step().slug() + ": no result within " + run.failures + " leases",
                    "operation " + run.lease.operationId() + ", last attempt " + run.lease.attempt()
                            + " expired at " + run.lease.expiresAt()));
            return;
        }
        issue(expiry.step(), dueAt, deadlines, policy); // same operation id, next token: the old owner is fenced out
    }

    @DeadlineHandler(deadlineName = Deadlines.RETRY_DUE)
    public void onRetryDue(RetryDue due, @Timestamp Instant dueAt, DeadlineManager deadlines) {
        Run run = runs.get(due.step());
        if (run == null || run.status != RunStatus.WAITING_RETRY || !run.lease.fencingToken().equals(due.failedToken())) {
            return;
        }
        if (!due.step().isCompensation() && isCompensatingOrCancelled()) {
            return; // a cancellation took over between attempts (e.g. voided the authorization): never redo the step
        }
        issue(due.step(), dueAt, deadlines, policy);
    }

    @DeadlineHandler(deadlineName = Deadlines.RECONCILIATION_DUE)
    public void onReconciliationDue(ReconciliationDue due, @Timestamp Instant dueAt, DeadlineManager deadlines) {
        if (state != CheckoutState.RECONCILIATION_PENDING || due.lookupNumber() != scheduledLookup) {
            return;
        }
        issue(Step.RECONCILE_PAYMENT, dueAt, deadlines, policy);
    }

    // ----------------------------------------------------------------------------------------------- decisions

    private void authorized(OperationId operationId, FencingToken token, String providerReference, Instant now,
                            DeadlineManager deadlines, WorkflowPolicy policy) {
        apply(new PaymentAuthorizedEvent(checkoutId, operationId, token, providerReference));
        if (cancelRequested) {
            issue(Step.VOID_PAYMENT, now, deadlines, policy);
        } else {
            apply(new CheckoutConfirmedEvent(checkoutId));
            issue(Step.SEND_RECEIPT, now, deadlines, policy);
        }
    }

    private void declined(OperationId operationId, FencingToken token, String reason, Instant now,
                          DeadlineManager deadlines, WorkflowPolicy policy) {
        apply(new PaymentDeclinedEvent(checkoutId, operationId, token, reason));
        issue(Step.RELEASE_STOCK, now, deadlines, policy);
    }

    private void onLookupAnswer(PaymentLookupAnsweredEvent answer, Instant now, DeadlineManager deadlines,
                                WorkflowPolicy policy) {
        Lease authorization = runs.get(Step.AUTHORIZE_PAYMENT).lease;
        switch (answer.outcome()) {
            case AUTHORIZED -> authorized(authorization.operationId(), authorization.fencingToken(),
                    answer.providerReference(), now, deadlines, policy);
            case DECLINED -> declined(authorization.operationId(), authorization.fencingToken(),
                    "reconciliation: DECLINED" + describe(answer.detail()), now, deadlines, policy);
            case NOT_FOUND -> {
                // The provider has no such authorization. A request still travelling could arrive later, so the
                // operation id is voided first (the provider then refuses it); the stock is released after that.
                apply(new PaymentDeclinedEvent(checkoutId, authorization.operationId(), authorization.fencingToken(),
                        "reconciliation: NOT_FOUND" + describe(answer.detail())));
                issue(Step.VOID_PAYMENT, now, deadlines, policy);
            }
            case PENDING, LOOKUP_FAILED -> {
                String last = answer.outcome() + describe(answer.detail());
                if (scheduledLookup - lookupBudgetStart >= policy.reconciliationMaxLookups()) {
                    apply(new ManualReviewRequiredEvent(checkoutId, Step.RECONCILE_PAYMENT,
                            "payment outcome still unknown after " + (scheduledLookup - lookupBudgetStart) + " lookups",
                            "authorization operation " + authorization.operationId() + "; last answer " + last
                                    + "; the provider may still authorize or decline it"));
                } else {
                    scheduleLookup(scheduledLookup + 1, now, last, deadlines, policy);
                }
            }
        }
    }

    private void onAttemptFailed(Step step, Run run, String detail, Instant now, DeadlineManager deadlines,
                                 WorkflowPolicy policy) {
        if (run.failures + 1 >= policy.maxAttempts()) {
            apply(new ManualReviewRequiredEvent(checkoutId, step,
                    step.slug() + " failed " + (run.failures + 1) + " times",
                    "operation " + run.lease.operationId() + "; last failure: " + detail));
            return;
        }
        Instant retryAt = now.plus(policy.retryDelay(run.failures + 1));
        deadlines.schedule(retryAt, Deadlines.RETRY_DUE, new RetryDue(step, run.lease.fencingToken()), scope());
        apply(new ActivityRetryScheduledEvent(checkoutId, step, run.lease.operationId(), run.lease.attempt(),
                retryAt, detail));
    }

    private void compensateFromManualReview(Instant now, DeadlineManager deadlines, WorkflowPolicy policy) {
        if (blockedStep.isCompensation()) {
            issue(blockedStep, now, deadlines, policy); // the compensation itself is stuck: try it again
        } else if (runs.containsKey(Step.AUTHORIZE_PAYMENT)) {
            Step undo = receiptSent ? Step.REFUND_PAYMENT : Step.VOID_PAYMENT;
            issue(undo, now, deadlines, policy); // covers "maybe authorized": void/refund are idempotent by key
        } else if (runs.containsKey(Step.RESERVE_STOCK)) {
            issue(Step.RELEASE_STOCK, now, deadlines, policy);
        } else {
            apply(new CheckoutCancelledEvent(checkoutId, cancelReason, cancelDetail));
        }
    }

    private void scheduleLookup(int lookupNumber, Instant now, String lastAnswer, DeadlineManager deadlines,
                                WorkflowPolicy policy) {
        Instant due = now.plus(policy.reconciliationDelay(lookupNumber - lookupBudgetStart));
        deadlines.schedule(due, Deadlines.RECONCILIATION_DUE, new ReconciliationDue(lookupNumber), scope());
        apply(new PaymentReconciliationScheduledEvent(checkoutId, OperationId.of(checkoutId, Step.AUTHORIZE_PAYMENT),
                lookupNumber, due, lastAnswer));
    }

    /** Grants a lease for {@code step}: same operation id as any earlier attempt, the next fencing token. */
    private void issue(Step step, Instant now, DeadlineManager deadlines, WorkflowPolicy policy) {
        Run previous = runs.get(step);
        int attempt = previous == null ? 1 : previous.lease.attempt() + 1;
        FencingToken token = previous == null ? FencingToken.first() : previous.lease.fencingToken().next();
        Lease lease = new Lease(OperationId.of(checkoutId, step), attempt, token, now.plus(policy.leaseFor(step)));
        String deadlineId = deadlines.schedule(lease.expiresAt(), Deadlines.LEASE_EXPIRED, new LeaseExpiry(step, token),
                scope());
        apply(intent(step, lease), MetaData.with(Deadlines.LEASE_DEADLINE_ID, deadlineId));
    }

    private ActivityIntent intent(Step step, Lease lease) {
        OperationId reservation = OperationId.of(checkoutId, Step.RESERVE_STOCK);
        OperationId authorization = OperationId.of(checkoutId, Step.AUTHORIZE_PAYMENT);
        return switch (step) {
            case RESERVE_STOCK -> new StockReservationRequestedEvent(checkoutId, tenantId, items, lease);
            case AUTHORIZE_PAYMENT -> new PaymentAuthorizationRequestedEvent(checkoutId, tenantId, amount, paymentToken, lease);
            case RECONCILE_PAYMENT -> new PaymentReconciliationRequestedEvent(checkoutId, tenantId, authorization,
                    scheduledLookup, lease);
            case SEND_RECEIPT -> new ReceiptRequestedEvent(checkoutId, tenantId, customerEmail, amount, lease);
            case RELEASE_STOCK -> new StockReleaseRequestedEvent(checkoutId, tenantId, reservation, lease);
            case VOID_PAYMENT -> new PaymentVoidRequestedEvent(checkoutId, tenantId, authorization, amount, lease);
            case REFUND_PAYMENT -> new PaymentRefundRequestedEvent(checkoutId, tenantId, authorization, amount, lease);
            case SEND_CANCELLATION_NOTICE -> new CancellationNoticeRequestedEvent(checkoutId, tenantId, customerEmail, lease);
        };
    }

    private ScopeDescriptor scope() {
        return new AggregateScopeDescriptor(TYPE, checkoutId.value());
    }

    private void requireManualReview(String rule) {
        if (state != CheckoutState.MANUAL_REVIEW) {
            throw new IllegalCheckoutTransitionException(rule, state,
                    "Checkout is " + state.wireName() + ", not manual_review");
        }
    }

    private boolean isCompensatingOrCancelled() {
        return switch (state) {
            case PAYMENT_DECLINED, STOCK_RELEASE_PENDING, VOID_PENDING, REFUND_REQUESTED, REFUND_CONFIRMED,
                 CANCELLATION_NOTICE_PENDING, CANCELLED -> true;
            default -> false;
        };
    }

    /** Says what happened, as opposed to "try again" or "still not known" (a redelivery of which changes nothing). */
    private static boolean isConclusive(ActivityResultEvent result) {
        if (result instanceof ActivityAttemptFailedEvent) {
            return false;
        }
        if (result instanceof PaymentLookupAnsweredEvent answer) {
            return switch (answer.outcome()) {
                case AUTHORIZED, DECLINED, NOT_FOUND -> true;
                case PENDING, LOOKUP_FAILED -> false;
            };
        }
        return true;
    }

    private static String describe(String detail) {
        return detail == null || detail.isBlank() ? "" : " (" + detail + ")";
    }

    // ------------------------------------------------------------------------------------------ event sourcing

    @EventSourcingHandler
    void on(CheckoutCreatedEvent e) {
        checkoutId = e.checkoutId();
        tenantId = e.tenantId();
        items = e.items();
        amount = e.amount();
        paymentToken = e.paymentToken();
        customerEmail = e.customerEmail();
        policy = WorkflowPolicy.of(e.policy());
        state = CheckoutState.CREATED;
    }

    @EventSourcingHandler
    void on(StockReservationRequestedEvent e, @MetaDataValue(Deadlines.LEASE_DEADLINE_ID) String deadlineId) {
        granted(e, deadlineId, CheckoutState.CREATED);
    }

    @EventSourcingHandler
    void on(PaymentAuthorizationRequestedEvent e, @MetaDataValue(Deadlines.LEASE_DEADLINE_ID) String deadlineId) {
        granted(e, deadlineId, CheckoutState.STOCK_RESERVED);
    }

    @EventSourcingHandler
    void on(PaymentReconciliationRequestedEvent e, @MetaDataValue(Deadlines.LEASE_DEADLINE_ID) String deadlineId) {
        granted(e, deadlineId, CheckoutState.RECONCILIATION_PENDING);
    }

    @EventSourcingHandler
    void on(ReceiptRequestedEvent e, @MetaDataValue(Deadlines.LEASE_DEADLINE_ID) String deadlineId) {
        granted(e, deadlineId, CheckoutState.CONFIRMED);
    }

    @EventSourcingHandler
    void on(StockReleaseRequestedEvent e, @MetaDataValue(Deadlines.LEASE_DEADLINE_ID) String deadlineId) {
        granted(e, deadlineId, CheckoutState.STOCK_RELEASE_PENDING);
    }

    @EventSourcingHandler
    void on(PaymentVoidRequestedEvent e, @MetaDataValue(Deadlines.LEASE_DEADLINE_ID) String deadlineId) {
        granted(e, deadlineId, CheckoutState.VOID_PENDING);
    }

    @EventSourcingHandler
    void on(PaymentRefundRequestedEvent e, @MetaDataValue(Deadlines.LEASE_DEADLINE_ID) String deadlineId) {
        granted(e, deadlineId, CheckoutState.REFUND_REQUESTED);
    }

    @EventSourcingHandler
    void on(CancellationNoticeRequestedEvent e, @MetaDataValue(Deadlines.LEASE_DEADLINE_ID) String deadlineId) {
        granted(e, deadlineId, CheckoutState.CANCELLATION_NOTICE_PENDING);
    }

    private void granted(ActivityIntent intent, String deadlineId, CheckoutState pendingState) {
        Run run = runs.computeIfAbsent(intent.step(), s -> new Run());
        run.lease = intent.lease();
        run.status = RunStatus.IN_FLIGHT;
        run.leaseDeadlineId = deadlineId;
        run.claimed = false;
        run.deferrals = 0;
        state = pendingState;
    }

    @EventSourcingHandler
    void on(StockReservedEvent e) {
        done(Step.RESERVE_STOCK);
    }

    @EventSourcingHandler
    void on(PaymentAuthorizedEvent e) {
        paymentOutcome = ManualResolution.AUTHORIZED;
        done(Step.AUTHORIZE_PAYMENT);
        done(Step.RECONCILE_PAYMENT);
        state = CheckoutState.PAYMENT_AUTHORIZED;
    }

    @EventSourcingHandler
    void on(PaymentDeclinedEvent e) {
        paymentOutcome = ManualResolution.DECLINED;
        done(Step.AUTHORIZE_PAYMENT);
        done(Step.RECONCILE_PAYMENT);
        if (!cancelRequested) {
            cancelReason = CancellationReason.PAYMENT_DECLINED;
            cancelDetail = e.reason();
        }
        state = CheckoutState.PAYMENT_DECLINED;
    }

    @EventSourcingHandler
    void on(PaymentOutcomeUnknownEvent e) {
        done(Step.AUTHORIZE_PAYMENT);
        state = CheckoutState.PAYMENT_UNKNOWN;
    }

    @EventSourcingHandler
    void on(PaymentReconciliationScheduledEvent e) {
        done(Step.RECONCILE_PAYMENT);
        scheduledLookup = e.lookupNumber();
        state = CheckoutState.RECONCILIATION_PENDING;
    }

    @EventSourcingHandler
    void on(CheckoutConfirmedEvent e) {
        state = CheckoutState.CONFIRMED;
    }

    @EventSourcingHandler
    void on(ReceiptSentEvent e) {
        done(Step.SEND_RECEIPT);
        receiptSent = true;
    }

    @EventSourcingHandler
    void on(CheckoutCompletedEvent e) {
        state = CheckoutState.COMPLETED;
    }

    @EventSourcingHandler
    void on(CheckoutCancellationRequestedEvent e) {
        cancelRequested = true;
        cancelReason = e.reason();
        cancelDetail = e.detail();
    }

    @EventSourcingHandler
    void on(PaymentVoidedEvent e) {
        done(Step.VOID_PAYMENT);
    }

    @EventSourcingHandler
    void on(PaymentRefundedEvent e) {
        done(Step.REFUND_PAYMENT);
        state = CheckoutState.REFUND_CONFIRMED;
    }

    @EventSourcingHandler
    void on(StockReleasedEvent e) {
        done(Step.RELEASE_STOCK);
    }

    @EventSourcingHandler
    void on(CancellationNoticeSentEvent e) {
        done(Step.SEND_CANCELLATION_NOTICE);
    }

    @EventSourcingHandler
    void on(CheckoutCancelledEvent e) {
        runs.values().forEach(r -> r.status = RunStatus.DONE);
        cancelReason = e.reason();
        state = CheckoutState.CANCELLED;
    }

    @EventSourcingHandler
    void on(ManualReviewRequiredEvent e) {
        blockedStep = e.blockedStep();
        Run run = runs.get(e.blockedStep());
        if (run != null) {
            run.status = RunStatus.BLOCKED;
            run.failures = 0; // an operator's retry starts a fresh budget
        }
        if (e.blockedStep() == Step.RECONCILE_PAYMENT) {
            lookupBudgetStart = scheduledLookup;
        }
        state = CheckoutState.MANUAL_REVIEW;
    }

    @EventSourcingHandler
    void on(PaymentOutcomeDisputedEvent e) {
        disputeOpen = true;
    }

    @EventSourcingHandler
    void on(ProviderNotificationHeldEvent e) {
        heldNotifications.put(e.notificationId(), e);
    }

    @EventSourcingHandler
    void on(ManualReviewResolvedEvent e) {
        disputeOpen = false;
    }

    @EventSourcingHandler
    void on(ActivityRetryScheduledEvent e) {
        Run run = runs.get(e.step());
        run.status = RunStatus.WAITING_RETRY;
        run.failures++;
    }

    @EventSourcingHandler
    void on(ActivityLeaseRenewedEvent e, @MetaDataValue(Deadlines.LEASE_DEADLINE_ID) String deadlineId) {
        Run run = runs.get(e.step());
        run.lease = e.lease();
        run.leaseDeadlineId = deadlineId;
        run.claimed = true;
    }

    @EventSourcingHandler
    void on(ActivityLeaseDeferredEvent e, @MetaDataValue(Deadlines.LEASE_DEADLINE_ID) String deadlineId) {
        Run run = runs.get(e.step());
        run.lease = e.lease();
        run.leaseDeadlineId = deadlineId;
        run.deferrals++;
    }

    @EventSourcingHandler
    void on(ActivityLeaseExpiredEvent e) {
        Run run = runs.get(e.step());
        run.status = RunStatus.EXPIRED;
        run.failures++;
    }

    private void done(Step step) {
        Run run = runs.get(step);
        if (run != null) {
            run.status = RunStatus.DONE;
        }
    }

    // ------------------------------------------------------------------------------------------------- state

    enum RunStatus { IN_FLIGHT, WAITING_RETRY, EXPIRED, BLOCKED, DONE }

    /** The latest lease of one step and what became of it. */
    static final class Run {
        Lease lease;
        RunStatus status;
        String leaseDeadlineId;
        int failures;
        /** An owner said it holds the current lease (a heartbeat): from then on the lease runs and can expire. */
        boolean claimed;
        /** Deadlines of the current lease that found no owner yet. */
        int deferrals;

        @Override
        public boolean equals(Object o) {
            return o instanceof Run r && Objects.equals(lease, r.lease) && status == r.status
                    && Objects.equals(leaseDeadlineId, r.leaseDeadlineId) && failures == r.failures
                    && claimed == r.claimed && deferrals == r.deferrals;
        }

        @Override
        public int hashCode() {
            return Objects.hash(lease, status, leaseDeadlineId, failures, claimed, deferrals);
        }
    }
}
