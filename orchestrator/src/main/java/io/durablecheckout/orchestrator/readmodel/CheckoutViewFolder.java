package io.durablecheckout.orchestrator.readmodel;

import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.CaptureAwaitedEvent;
import io.durablecheckout.api.checkout.CustomerActionRequiredEvent;
import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;
import io.durablecheckout.api.checkout.PaymentCaptureFailedEvent;
import io.durablecheckout.api.checkout.PaymentCapturedEvent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseDeferredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.CheckoutCancellationRequestedEvent;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.checkout.ManualReviewResolvedEvent;
import io.durablecheckout.api.checkout.ProviderNotificationHeldEvent;
import io.durablecheckout.api.checkout.OperatorRetryRequestedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentDeclinedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeDisputedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeUnknownEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.CheckoutFacts;
import io.durablecheckout.orchestrator.checkout.CheckoutState;
import io.durablecheckout.orchestrator.checkout.Run;
import io.durablecheckout.orchestrator.checkout.Workflow;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Locale;

/**
 * Folds Checkout events into a {@link CheckoutView}. Pure: the projection and the consistent read of a checkout whose
 * projection lags use the same function, so they cannot disagree.
 */
public final class CheckoutViewFolder {

    private CheckoutViewFolder() {
    }

    public static CheckoutView fold(CheckoutView view, CheckoutEvent event, long sequence, Instant at) {
        CheckoutView v = view == null ? new CheckoutView() : view;
        v.version = sequence;
        v.updatedAt = at;
        // Where the checkout is comes from the aggregate's own fold; what follows only describes it.
        state(v, CheckoutFacts.stateAfter(v.state == null ? null : CheckoutState.valueOf(v.state.toUpperCase(Locale.ROOT)),
                event), at);
        // Each step's status comes from the runs' own fold (Run.statusAfter), worded here; what follows refines the
        // word of a step that is done (succeeded, declined, …) and adds what the view shows beside it.
        // the lookup's status before this event: was it answering (in flight), or blocked in a review?
        CheckoutView.Activity lookup = v.activities.get(Step.RECONCILE_PAYMENT.slug());
        String lookupBefore = lookup == null ? null : lookup.status;
        for (Step step : Step.values()) {
            CheckoutView.Activity a = v.activities.get(step.slug());
            Run.Status before = a == null ? null : statusOf(a.status);
            Run.Status after = Run.statusAfter(before, step, event);
            if (after != null && after != before) {
                activity(v, step).status = word(after);
            }
        }
        Step done = Workflow.recordedBy(event); // a step's success fact: its workflow row names the step and the word
        if (done != null) {
            succeeded(v, done, Workflow.doneInWords(done));
        }
        if (event instanceof CheckoutCreatedEvent e) {
            v.checkoutId = e.checkoutId().value();
            v.tenantId = e.tenantId().value();
            v.createdAt = at;
            v.amount = new CheckoutView.Amount(e.amount().minor(), e.amount().currency());
            e.items().forEach(i -> v.items.add(new CheckoutView.Item(i.sku().value(), i.quantity())));
            v.customerEmail = e.customerEmail();
            v.idempotencyKey = e.idempotencyKey();
            v.captureMode = e.policy().capture() == null ? null : e.policy().capture().wireName();
        } else if (event instanceof CheckoutConfirmedEvent e) {
            v.holdExpiresAt = e.holdExpiresAt();
        } else if (event instanceof CaptureAwaitedEvent e) {
            v.waiting = new CheckoutView.Waiting("awaiting the tenant's capture (POST /api/v1/checkouts/" + v.checkoutId
                    + "/capture, as the order ships)", e.holdExpiresAt(), "the authorization's hold lapses: the "
                    + "checkout is cancelled (void, stock release, notice to the customer)", known(v),
                    "when the order ships");
        } else if (event instanceof CustomerActionRequiredEvent e) {
            v.customerAction = new CheckoutView.CustomerAction(nextAction(e.nextAction()), e.providerReference(),
                    e.until());
            v.waiting = new CheckoutView.Waiting("waiting for the customer to authenticate the payment (3-D Secure): "
                    + "show them customerAction.nextAction", e.until(), "still waiting: the checkout is cancelled "
                    + "(the authorization voided, the stock released)", known(v),
                    "whether the customer completes the authentication");
        } else if (event instanceof PaymentCapturedEvent e) {
            v.captured = new CheckoutView.Amount(e.amount().minor(), e.amount().currency());
            v.capturedAt = at;
        } else if (event instanceof io.durablecheckout.api.checkout.PaymentRefundedEvent) {
            if (v.refunding != null) {
                v.refunded = new CheckoutView.Amount((v.refunded == null ? 0 : v.refunded.minor()) + v.refunding.minor(),
                        v.refunding.currency());
                v.refunding = null;
            }
        } else if (event instanceof io.durablecheckout.api.checkout.PaymentVoidedEvent e) {
            if (Workflow.isOperatorOperation(e.checkoutId(), Step.VOID_PAYMENT, e.operationId())) {
                v.holdReleasedAt = at;
            }
        } else if (event instanceof PaymentCaptureFailedEvent e) {
            CheckoutView.Activity a = activity(v, Step.CAPTURE_PAYMENT);
            a.status = "declined";
            a.lastOutcome = e.reason();
        } else if (event instanceof ActivityIntent e) {
            CheckoutView.Activity a = activity(v, e.step());
            Lease lease = e.lease();
            a.operationId = lease.operationId().value();
            a.attempt = lease.attempt();
            a.fencingToken = lease.fencingToken().value();
            a.leaseExpiresAt = lease.expiresAt();
            a.retryAt = null;
            if (e instanceof io.durablecheckout.api.checkout.PaymentRefundRequestedEvent r) {
                v.refunding = new CheckoutView.Amount(r.amount().minor(), r.amount().currency());
            }
            String what = Workflow.awaited(e.step());
            v.waiting = new CheckoutView.Waiting("waiting for " + what + " (operation " + a.operationId + ", attempt "
                    + a.attempt + ", fencing token " + a.fencingToken + ")", lease.expiresAt(),
                    "lease expires: a new owner gets fencing token " + (a.fencingToken + 1)
                            + " for the same operation id; results with older tokens are rejected",
                    known(v), "whether " + what + " has happened yet");
            if (e instanceof PaymentReconciliationRequestedEvent r) {
                v.waiting = new CheckoutView.Waiting("asking the provider (lookup " + r.lookupNumber()
                        + ") about authorization " + r.authorizationOperationId(), lease.expiresAt(),
                        "lease expires: the lookup is sent again", known(v),
                        "whether the provider authorized the payment");
            }
        } else if (event instanceof PaymentAuthorizedEvent e) {
            v.customerAction = null;
            if (v.activities.containsKey(Step.RECONCILE_PAYMENT.slug())) {
                succeeded(v, Step.RECONCILE_PAYMENT, "in_flight".equals(lookupBefore) ? "provider reported authorized"
                        : "no lookup answer: authorized on other evidence");
            }
            v.providerReference = e.providerReference();
        } else if (event instanceof CheckoutCompletedEvent) {
            v.completedAt = at;
            v.waiting = v.manualReview == null ? null : disputeWaiting(v);
        } else if (event instanceof PaymentDeclinedEvent e) {
            v.customerAction = null;
            CheckoutView.Activity a = activity(v, Step.AUTHORIZE_PAYMENT);
            a.status = "declined";
            a.lastOutcome = e.reason();
            if (v.activities.containsKey(Step.RECONCILE_PAYMENT.slug())) {
                succeeded(v, Step.RECONCILE_PAYMENT, "in_flight".equals(lookupBefore) ? "provider reported declined"
                        : "no lookup answer: declined on other evidence");
            }
        } else if (event instanceof PaymentOutcomeUnknownEvent e) {
            CheckoutView.Activity a = activity(v, Step.AUTHORIZE_PAYMENT);
            a.status = "unknown";
            a.lastOutcome = e.reason();
            if (v.paymentUnknownSince == null) {
                v.paymentUnknownSince = at;
            }
        } else if (event instanceof PaymentReconciliationScheduledEvent e) {
            CheckoutView.Activity a = v.activities.get(Step.RECONCILE_PAYMENT.slug());
            // out of a review (an operator's retry): the lookups' last answer stays the evidence
            boolean afterReview = "blocked".equals(lookupBefore);
            if (a != null) {
                a.status = "inconclusive";
                a.lastOutcome = afterReview ? a.lastOutcome : e.lastAnswer();
            }
            v.waiting = new CheckoutView.Waiting("payment outcome unknown; next lookup under the original operation id",
                    e.dueAt(), "ask the provider about " + e.authorizationOperationId() + " (lookup " + e.lookupNumber()
                    + "); never a new authorization", known(v) + (afterReview ? "; an operator asked for more lookups"
                    : "; last answer: " + e.lastAnswer()),
                    "whether the provider authorized the payment");
        } else if (event instanceof ManualReviewRequiredEvent e) {
            v.manualReview = new CheckoutView.ManualReview(e.blockedStep().slug(), e.reason(), e.evidence());
            v.reason = "manual_review";
            v.reasonDetail = e.reason();
            v.waiting = new CheckoutView.Waiting("waiting for an operator: " + e.reason(), null,
                    "nothing happens until an operator resolves, retries or cancels", known(v), e.evidence());
        } else if (event instanceof PaymentOutcomeDisputedEvent e) {
            v.manualReview = new CheckoutView.ManualReview(Step.AUTHORIZE_PAYMENT.slug(),
                    "provider notification contradicts the recorded payment outcome",
                    "recorded " + e.recordedOutcome() + ", provider notification " + e.notificationId() + " says "
                            + e.reportedOutcome() + " (reference " + e.providerReference() + "); not applied");
            if (v.waiting == null) {
                v.waiting = disputeWaiting(v);
            }
        } else if (event instanceof ProviderNotificationHeldEvent e) {
            if (v.notificationsHeld == null) {
                v.notificationsHeld = new ArrayList<>();
            }
            String outcome = e.reportedOutcome().name().toLowerCase(Locale.ROOT);
            v.notificationsHeld.add(new CheckoutView.HeldNotification(e.notificationId(), outcome,
                    e.providerReference(), e.receivedAt()));
            if (v.manualReview != null && CheckoutState.MANUAL_REVIEW.wireName().equals(v.state)) {
                String offer = "provider notification " + e.notificationId() + " says " + outcome
                        + (e.providerReference() == null ? "" : " (reference " + e.providerReference() + ")")
                        + ", held, not applied: resolve as " + outcome + " to apply it"
                        + (e.reportedOutcome() == ManualResolution.AUTHORIZED ? " (its reference is used)" : "");
                v.manualReview = new CheckoutView.ManualReview(v.manualReview.blockedStep(), v.manualReview.reason(),
                        (v.manualReview.evidence() == null ? "" : v.manualReview.evidence() + "; ") + offer);
                if (v.waiting != null) {
                    v.waiting = new CheckoutView.Waiting(v.waiting.reason(), v.waiting.nextDeadline(),
                            v.waiting.onDeadline(), v.waiting.known() + "; " + offer, v.waiting.unknown());
                }
            }
        } else if (event instanceof ManualReviewResolvedEvent || event instanceof OperatorRetryRequestedEvent) {
            boolean disputeOnly = !CheckoutState.MANUAL_REVIEW.wireName().equals(v.state);
            v.manualReview = null;
            if (disputeOnly && CheckoutState.valueOf(v.state.toUpperCase()).isTerminal()) {
                v.waiting = null;
            }
            if (!disputeOnly) {
                v.reason = null;
                v.reasonDetail = null;
            }
        } else if (event instanceof CheckoutCancellationRequestedEvent e) {
            v.cancellationRequested = true;
            v.reasonDetail = e.detail();
            v.cancelReason = e.reason() == null ? null : e.reason().name().toLowerCase(Locale.ROOT);
            v.cancelDetail = e.detail();
        } else if (event instanceof CheckoutCancelledEvent e) {
            v.reason = e.reason() == null ? null : e.reason().name().toLowerCase();
            v.reasonDetail = e.detail();
            v.waiting = v.manualReview == null ? null : disputeWaiting(v);
        } else if (event instanceof ActivityRetryScheduledEvent e) {
            CheckoutView.Activity a = activity(v, e.step());
            a.lastOutcome = e.lastFailure();
            a.retryAt = e.retryAt();
            v.waiting = new CheckoutView.Waiting(
                    Workflow.awaited(e.step()) + " failed (" + e.lastFailure() + "); retry scheduled",
                    e.retryAt(), "try again under the same operation id " + e.operationId(), known(v), null);
        } else if (event instanceof ActivityLeaseRenewedEvent e) {
            CheckoutView.Activity a = activity(v, e.step());
            a.leaseExpiresAt = e.lease().expiresAt();
            if (v.waiting != null && "in_flight".equals(a.status)) {
                v.waiting = new CheckoutView.Waiting(v.waiting.reason(), e.lease().expiresAt(), v.waiting.onDeadline(),
                        v.waiting.known(), v.waiting.unknown());
            }
        } else if (event instanceof ActivityLeaseDeferredEvent e) {
            CheckoutView.Activity a = activity(v, e.step());
            a.leaseExpiresAt = e.lease().expiresAt();
            if (v.waiting != null && "in_flight".equals(a.status)) {
                String queued = "; queued: no worker has picked it up yet";
                v.waiting = new CheckoutView.Waiting(
                        v.waiting.reason().endsWith(queued) ? v.waiting.reason() : v.waiting.reason() + queued,
                        e.lease().expiresAt(), "checked again; the lease starts when a worker claims the intent",
                        v.waiting.known(), v.waiting.unknown());
            }
        } else if (event instanceof ActivityLeaseExpiredEvent e) {
            v.leasesExpired++;
        } else if (event instanceof ActivityResultRejectedEvent) {
            v.staleResultsRejected++;
        }
        if (CheckoutState.COMPLETED.wireName().equals(v.state) && v.manualReview == null
                && (done != null || event instanceof PaymentCaptureFailedEvent)) {
            v.waiting = null; // an operator's payment operation on the completed checkout concluded
        }
        // An open dispute keeps even a completed or cancelled checkout in front of operators, and so does an operator's
        // payment operation still running on a completed one (its lease has a deadline the timer watchdog watches).
        v.terminal = CheckoutState.valueOf(v.state.toUpperCase()).isTerminal() && v.manualReview == null
                && !(CheckoutState.COMPLETED.wireName().equals(v.state) && v.waiting != null);
        return v;
    }

    /**
     * The view's word for a step's status: one per {@link Run.Status}, but a done step, which says how it ended
     * ({@code succeeded}, {@code declined}, {@code unknown}, {@code inconclusive}; {@code ended} when the checkout's
     * cancellation closed it).
     */
    public static String word(Run.Status status) {
        return switch (status) {
            case IN_FLIGHT -> "in_flight";
            case WAITING_RETRY -> "retry_scheduled";
            case EXPIRED -> "lease_expired";
            case BLOCKED -> "blocked";
            case DONE -> "ended";
        };
    }

    /** The status a view's word stands for ({@code null}: the step was never requested). */
    public static Run.Status statusOf(String word) {
        if (word == null) {
            return null;
        }
        return switch (word) {
            case "in_flight" -> Run.Status.IN_FLIGHT;
            case "retry_scheduled" -> Run.Status.WAITING_RETRY;
            case "lease_expired" -> Run.Status.EXPIRED;
            case "blocked" -> Run.Status.BLOCKED;
            default -> Run.Status.DONE; // succeeded, declined, unknown, inconclusive, ended
        };
    }

    private static CheckoutView.Waiting disputeWaiting(CheckoutView v) {
        return new CheckoutView.Waiting("an operator to look at a disputed payment", null,
                "nothing happens until an operator resolves the dispute or cancels", known(v),
                "which of the provider's reports is true");
    }

    /** The provider's next action as plain JSON values; text that is not JSON is kept as text. */
    private static Object nextAction(String json) {
        if (json == null) {
            return null;
        }
        try {
            return NEXT_ACTION.readValue(json, Object.class);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return json;
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper NEXT_ACTION =
            new com.fasterxml.jackson.databind.ObjectMapper();

    private static String known(CheckoutView v) {
        StringBuilder sb = new StringBuilder();
        v.activities.forEach((step, a) -> {
            if (a.lastOutcome != null && !"in_flight".equals(a.status)) {
                if (!sb.isEmpty()) sb.append(", ");
                sb.append(step).append(": ").append(a.lastOutcome);
            }
        });
        return sb.isEmpty() ? "nothing has been done yet" : sb.toString();
    }

    private static CheckoutView.Activity activity(CheckoutView v, Step step) {
        return v.activities.computeIfAbsent(step.slug(), s -> new CheckoutView.Activity());
    }

    private static void succeeded(CheckoutView v, Step step, String outcome) {
        CheckoutView.Activity a = activity(v, step);
        a.status = "succeeded";
        a.lastOutcome = outcome;
        a.retryAt = null;
    }

    private static void state(CheckoutView v, CheckoutState state, Instant at) {
        if (!state.wireName().equals(v.state)) {
            v.stateSince = at;
        }
        state(v, state);
    }

    private static void state(CheckoutView v, CheckoutState state) {
        boolean leavingReview = CheckoutState.MANUAL_REVIEW.wireName().equals(v.state);
        if (state != CheckoutState.MANUAL_REVIEW && leavingReview && v.manualReview != null) {
            v.manualReview = null; // settled: by an operator, or by late evidence
            v.reason = null;
            v.reasonDetail = null;
        }
        v.state = state.wireName();
    }
}
