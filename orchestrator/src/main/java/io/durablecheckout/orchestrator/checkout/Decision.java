package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.ActivityLeaseDeferredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Step;

import java.time.Instant;
import java.util.List;

/**
 * What one input decided, as one value: the events to record, in order, and the timers to cancel and to schedule
 * (the shell cancels before it schedules, as every decision needs). Replay compares this value with what was recorded.
 */
public record Decision(List<CheckoutEvent> events, List<Timer> cancel, List<Timer> schedule) {

    public static final Decision NOTHING = new Decision(List.of(), List.of(), List.of());

    public Decision {
        events = List.copyOf(events);
        cancel = List.copyOf(cancel);
        schedule = List.copyOf(schedule);
    }

    /**
     * A durable timer, known by what it is for rather than by a handle: its deadline name, the step, the fencing token
     * of the lease it belongs to (a lookup's number for a reconciliation) and its due time. Whatever deadline manager
     * runs it, the decision stays the same value.
     */
    public record Timer(String name, Step step, FencingToken token, int lookupNumber, Instant due) {

        /** When the lease {@code token} of {@code step} expires. */
        static Timer leaseExpiry(Step step, FencingToken token, Instant due) {
            return new Timer(Deadlines.LEASE_EXPIRED, step, token, 0, due);
        }

        /** When the step whose attempt under {@code failedToken} failed is tried again. */
        static Timer retry(Step step, FencingToken failedToken, Instant due) {
            return new Timer(Deadlines.RETRY_DUE, step, failedToken, 0, due);
        }

        /** When the {@code lookupNumber}-th lookup of an unknown payment is sent. */
        static Timer lookup(int lookupNumber, Instant due) {
            return new Timer(Deadlines.RECONCILIATION_DUE, Step.RECONCILE_PAYMENT, null, lookupNumber, due);
        }

        /** When the authorization's hold lapses. */
        static Timer holdExpiry(Instant due) {
            return new Timer(Deadlines.HOLD_EXPIRED, Step.CAPTURE_PAYMENT, null, 0, due);
        }

        /** When the customer's time to act (3-D Secure) ends. */
        static Timer customerAction(Instant due) {
            return new Timer(Deadlines.CUSTOMER_ACTION_DUE, Step.AUTHORIZE_PAYMENT, null, 0, due);
        }

        /** What the deadline carries to its handler. */
        public Object payload() {
            return switch (name) {
                case Deadlines.LEASE_EXPIRED -> new Deadlines.LeaseExpiry(step, token);
                case Deadlines.RETRY_DUE -> new Deadlines.RetryDue(step, token);
                case Deadlines.RECONCILIATION_DUE -> new Deadlines.ReconciliationDue(lookupNumber);
                case Deadlines.HOLD_EXPIRED -> new Deadlines.HoldExpiry(due);
                case Deadlines.CUSTOMER_ACTION_DUE -> new Deadlines.CustomerActionDue(due);
                default -> throw new IllegalStateException("unknown timer " + name);
            };
        }

        /**
         * The timer an event starts or moves, whose handle the shell keeps to cancel it: a lease's (an intent, a
         * renewal, a deferral) or the hold's (a confirmation under rules version 3); otherwise {@code null}.
         */
        public static Timer ofLease(CheckoutEvent event) {
            if (event instanceof ActivityIntent e) {
                return leaseExpiry(e.step(), e.lease().fencingToken(), e.lease().expiresAt());
            } else if (event instanceof ActivityLeaseRenewedEvent e) {
                return leaseExpiry(e.step(), e.lease().fencingToken(), e.lease().expiresAt());
            } else if (event instanceof ActivityLeaseDeferredEvent e) {
                return leaseExpiry(e.step(), e.lease().fencingToken(), e.lease().expiresAt());
            } else if (event instanceof CheckoutConfirmedEvent e && e.holdExpiresAt() != null) {
                return holdExpiry(e.holdExpiresAt()); // a deferred capture's; for the others no handle is recorded
            }
            return null;
        }
    }
}
