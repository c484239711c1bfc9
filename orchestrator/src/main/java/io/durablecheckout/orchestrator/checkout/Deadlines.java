package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Step;

/** Deadline names and payloads of the Checkout aggregate. Payloads say which lease or round they belong to. */
public final class Deadlines {
    public static final String LEASE_EXPIRED = "checkout-lease-expired";
    public static final String RETRY_DUE = "checkout-retry-due";
    public static final String RECONCILIATION_DUE = "checkout-reconciliation-due";
    /**
     * Metadata key under which an event that grants or moves a lease records the handle its deadline manager gave the
     * lease's timer (infrastructure, not a decision: the shell needs it to cancel the timer).
     */
    public static final String LEASE_DEADLINE_ID = "leaseDeadlineId";

    private Deadlines() {
    }

    public record LeaseExpiry(Step step, FencingToken fencingToken) {
    }

    public record RetryDue(Step step, FencingToken failedToken) {
    }

    public record ReconciliationDue(int lookupNumber) {
    }
}
