package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Step;

/** Deadline names and payloads of the Checkout aggregate. Payloads say which lease or round they belong to. */
public final class Deadlines {
    public static final String LEASE_EXPIRED = "checkout-lease-expired";
    public static final String RETRY_DUE = "checkout-retry-due";
    public static final String RECONCILIATION_DUE = "checkout-reconciliation-due";
    /** The authorization's hold lapses (rules version 3 on): cancelled unless a capture was asked for. */
    public static final String HOLD_EXPIRED = "checkout-hold-expired";
    /** The customer's time to act (3-D Secure) is up: cancelled if the payment still waits for them. */
    public static final String CUSTOMER_ACTION_DUE = "checkout-customer-action-due";
    /**
     * Metadata key under which an event that grants or moves a lease records the handle its deadline manager gave the
     * lease's timer (infrastructure, not a decision: the shell needs it to cancel the timer).
     */
    public static final String LEASE_DEADLINE_ID = "leaseDeadlineId";
    /**
     * The unit-of-work resource in which the shell leaves what it observed for a fired deadline (a map, e.g.
     * {@value #INTENT_PASSED}), so it is recorded with the input and replay decides with it (docs/replay.md).
     */
    public static final String OBSERVED = Deadlines.class.getName() + ".observed";
    /** Observed: the step's processor has passed the lease's intent (handled or parked it). */
    public static final String INTENT_PASSED = "intentPassed";

    private Deadlines() {
    }

    public record LeaseExpiry(Step step, FencingToken fencingToken) {
    }

    /**
     * A lease's deadline with what the shell observed when it fired: whether the step's processor has passed the
     * intent ({@link IntentProgress}). The decider's input; the deadline's payload stays {@link LeaseExpiry}.
     */
    public record ObservedLeaseExpiry(Step step, FencingToken fencingToken, boolean intentPassed) {
    }

    public record RetryDue(Step step, FencingToken failedToken) {
    }

    public record ReconciliationDue(int lookupNumber) {
    }

    /** The customer's time to act ends; {@code until} as recorded when the provider asked for them. */
    public record CustomerActionDue(java.time.Instant until) {
    }

    /** The hold of the authorization expires; {@code expiresAt} as recorded at confirmation. */
    public record HoldExpiry(java.time.Instant expiresAt) {
    }
}
