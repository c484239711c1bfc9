package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.ActivityLeaseDeferredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentCaptureFailedEvent;
import io.durablecheckout.api.checkout.CustomerActionRequiredEvent;
import io.durablecheckout.api.checkout.PaymentDeclinedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeUnknownEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;

import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * The latest lease of one step of a checkout and what became of it. Immutable: each change is a new value.
 *
 * @param failures  failed attempts and expired leases of the current operation (reset when an operator retries)
 * @param claimed   an owner said it holds the current lease (a heartbeat): from then on the lease runs and can expire
 * @param deferrals deadlines of the current lease that found no owner yet
 */
public record Run(Lease lease, Status status, int failures, boolean claimed, int deferrals) {

    public enum Status { IN_FLIGHT, WAITING_RETRY, EXPIRED, BLOCKED, DONE }

    /**
     * The one fold of a step's status: what {@code step}'s run is after {@code event}, given what it was
     * ({@code null}: never requested). {@link CheckoutFacts} (through {@link #fold}) and the read model's view
     * both take the status from here, so they cannot word a step differently.
     */
    public static Status statusAfter(Status current, Step step, CheckoutEvent event) {
        if (event instanceof ActivityIntent intent) {
            return intent.step() == step ? Status.IN_FLIGHT : current;
        }
        if (current == null) {
            return null;
        }
        if (event instanceof ActivityRetryScheduledEvent e) {
            return e.step() == step ? Status.WAITING_RETRY : current;
        } else if (event instanceof ActivityLeaseExpiredEvent e) {
            return e.step() == step ? Status.EXPIRED : current;
        } else if (event instanceof ManualReviewRequiredEvent e) {
            return e.blockedStep() == step ? Status.BLOCKED : current;
        } else if (event instanceof CheckoutCancelledEvent) {
            return Status.DONE; // nothing runs once a checkout is cancelled
        }
        return step == Workflow.recordedBy(event) || settles(event, step) ? Status.DONE : current;
    }

    /** The payment's outcome settles its authorization and the lookups about it, besides the step that reported it. */
    private static boolean settles(CheckoutEvent event, Step step) {
        if (event instanceof PaymentAuthorizedEvent || event instanceof PaymentDeclinedEvent) {
            return step == Step.AUTHORIZE_PAYMENT || step == Step.RECONCILE_PAYMENT;
        } else if (event instanceof PaymentOutcomeUnknownEvent || event instanceof CustomerActionRequiredEvent) {
            return step == Step.AUTHORIZE_PAYMENT; // its lookups are a step of their own; the customer acts now
        } else if (event instanceof PaymentReconciliationScheduledEvent) {
            return step == Step.RECONCILE_PAYMENT; // a lookup concluded: the next one is scheduled
        } else if (event instanceof PaymentCaptureFailedEvent) {
            return step == Step.CAPTURE_PAYMENT; // refused for good: nothing more runs under the capture
        }
        return false;
    }

    /** The run of {@code step} after {@code event} ({@code null}: still never requested), its status from {@link #statusAfter}. */
    static Run after(Run run, Step step, CheckoutEvent event) {
        Status status = statusAfter(run == null ? null : run.status, step, event);
        if (status == null) {
            return null;
        }
        if (event instanceof ActivityIntent intent && intent.step() == step) {
            return granted(run, intent.lease());
        } else if (event instanceof ActivityLeaseRenewedEvent e && e.step() == step) {
            return run.renewed(e.lease());
        } else if (event instanceof ActivityLeaseDeferredEvent e && e.step() == step) {
            return run.deferred(e.lease());
        } else if (event instanceof ActivityRetryScheduledEvent e && e.step() == step
                || event instanceof ActivityLeaseExpiredEvent x && x.step() == step) {
            return run.failed(status); // one more failed attempt of the operation
        } else if (status == Status.BLOCKED && run.status != Status.BLOCKED) {
            return run.blocked();
        }
        return status == run.status ? run : run.with(status);
    }

    /** Every step's run after {@code event}: the same map when nothing changed. */
    static Map<Step, Run> fold(Map<Step, Run> runs, CheckoutEvent event) {
        Map<Step, Run> next = null;
        for (Step step : Step.values()) {
            Run before = runs.get(step);
            Run after = after(before, step, event);
            if (after != before) {
                if (next == null) {
                    next = new EnumMap<>(Step.class);
                    next.putAll(runs);
                }
                next.put(step, after);
            }
        }
        return next == null ? runs : Collections.unmodifiableMap(next);
    }

    /**
     * A new lease for the step: in flight, not yet claimed by an owner. Its operation's failures carry over; another
     * operation of the step (an operator's, decision 130) starts with none.
     */
    static Run granted(Run previous, Lease lease) {
        boolean same = previous != null && previous.lease.operationId().equals(lease.operationId());
        return new Run(lease, Status.IN_FLIGHT, same ? previous.failures : 0, false, 0);
    }

    public boolean inFlight() {
        return status == Status.IN_FLIGHT;
    }

    /** The lease in force carries this token. */
    public boolean holds(FencingToken token) {
        return lease.fencingToken().equals(token);
    }

    /** The lease in force, with another expiry (renewed, or deferred while nobody has claimed it). */
    Lease leaseUntil(Instant expiresAt) {
        return new Lease(lease.operationId(), lease.attempt(), lease.fencingToken(), expiresAt);
    }

    Run with(Status next) {
        return new Run(lease, next, failures, claimed, deferrals);
    }

    Run failed(Status next) {
        return new Run(lease, next, failures + 1, claimed, deferrals);
    }

    /** Blocked in manual review: an operator's retry starts a fresh budget. */
    Run blocked() {
        return new Run(lease, Status.BLOCKED, 0, claimed, deferrals);
    }

    Run renewed(Lease renewed) {
        return new Run(renewed, status, failures, true, deferrals);
    }

    Run deferred(Lease waiting) {
        return new Run(waiting, status, failures, claimed, deferrals + 1);
    }
}
