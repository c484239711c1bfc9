package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.ActivityLeaseDeferredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
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
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentDeclinedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeDisputedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeUnknownEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.checkout.PaymentRefundedEvent;
import io.durablecheckout.api.checkout.PaymentVoidedEvent;
import io.durablecheckout.api.checkout.ProviderNotificationHeldEvent;
import io.durablecheckout.api.checkout.ReceiptSentEvent;
import io.durablecheckout.api.checkout.StockReleasedEvent;
import io.durablecheckout.api.checkout.StockReservedEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Run.Status;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.messaging.ScopeDescriptor;
import org.axonframework.messaging.annotation.MetaDataValue;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.AggregateScopeDescriptor;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a checkout's own events say: its state, rebuilt by the event-sourcing handlers, and the questions the
 * {@link Checkout}'s decisions ask of it. No decisions here; the handlers only record. Split from {@link Checkout}
 * so that class reads as the decisions alone (Axon finds handlers in the superclass too).
 */
abstract class RecordedCheckout {

    @AggregateIdentifier
    CheckoutId checkoutId;
    Order order;
    CheckoutState state;
    final Map<Step, Run> runs = new EnumMap<>(Step.class);
    boolean cancelRequested;
    CancellationReason cancelReason;
    String cancelDetail;
    boolean receiptSent;
    int scheduledLookup;
    int lookupBudgetStart;
    Step blockedStep;
    /** The payment outcome once known from any evidence (worker, lookup, provider notification, operator). */
    ManualResolution paymentOutcome;
    /** A provider notification contradicted the recorded outcome and no operator has looked at it yet. */
    boolean disputeOpen;
    /** Notifications kept as evidence while the checkout was not the provider's to settle, by notification id. */
    final Map<String, ProviderNotificationHeldEvent> heldNotifications = new LinkedHashMap<>();
    /** Fixed when the checkout was created (recorded in its first event); never the current configuration. */
    WorkflowPolicy policy;

    ScopeDescriptor scope() {
        return new AggregateScopeDescriptor(Checkout.TYPE, checkoutId.value());
    }

    void requireManualReview(String rule) {
        if (state != CheckoutState.MANUAL_REVIEW) {
            throw new IllegalCheckoutTransitionException(rule, state,
                    "Checkout is " + state.wireName() + ", not manual_review");
        }
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

    /** What decides which compensations are owed (see {@link Workflow#COMPENSATIONS}). */
    Workflow.Facts compensationFacts() {
        return new Workflow.Facts(runs.keySet(), paymentOutcome == ManualResolution.DECLINED, receiptSent);
    }

    // ------------------------------------------------------------------------------------------ event sourcing

    @EventSourcingHandler
    void on(CheckoutCreatedEvent e) {
        checkoutId = e.checkoutId();
        order = new Order(e.checkoutId(), e.tenantId(), e.items(), e.amount(), e.paymentToken(), e.customerEmail());
        policy = WorkflowPolicy.of(e.policy());
        state = CheckoutState.CREATED;
    }

    /** Every request grants its step a lease and puts the checkout in the step's pending state (the table's). */
    @EventSourcingHandler
    void on(ActivityIntent e, @MetaDataValue(Deadlines.LEASE_DEADLINE_ID) String deadlineId) {
        runs.computeIfAbsent(e.step(), s -> new Run()).granted(e.lease(), deadlineId);
        state = Workflow.pendingState(e.step());
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
        runs.values().forEach(r -> r.status = Status.DONE);
        cancelReason = e.reason();
        state = CheckoutState.CANCELLED;
    }

    @EventSourcingHandler
    void on(ManualReviewRequiredEvent e) {
        blockedStep = e.blockedStep();
        Run run = runs.get(e.blockedStep());
        if (run != null) {
            run.status = Status.BLOCKED;
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
        run.status = Status.WAITING_RETRY;
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
        run.status = Status.EXPIRED;
        run.failures++;
    }

    private void done(Step step) {
        Run run = runs.get(step);
        if (run != null) {
            run.status = Status.DONE;
        }
    }
}
