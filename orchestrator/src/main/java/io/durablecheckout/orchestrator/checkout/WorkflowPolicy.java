package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.values.Step;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * Durations and limits of the workflow. Injected into the aggregate's handlers as a resource; every value it yields
 * is recorded in the events it shapes (lease expiry, retry and lookup times), so replay does not depend on it.
 *
 * @param leaseDuration            how long a worker owns a forward step or compensation before a new owner is sent
 * @param paymentLeaseDuration     the same for payment steps; longer than the provider request timeout
 * @param retryInitialDelay        first back-off after a retryable failure, doubling per attempt
 * @param retryMaxDelay            back-off ceiling
 * @param maxAttempts              attempts of one operation (failures or expired leases) before manual review
 * @param reconciliationInitialDelay first lookup after an unknown payment outcome, doubling per lookup
 * @param reconciliationMaxDelay   lookup back-off ceiling
 * @param reconciliationMaxLookups lookups that find nothing conclusive before manual review
 */
@ConfigurationProperties("checkout.workflow")
public record WorkflowPolicy(Duration leaseDuration, Duration paymentLeaseDuration, Duration retryInitialDelay,
                             Duration retryMaxDelay, Integer maxAttempts, Duration reconciliationInitialDelay,
                             Duration reconciliationMaxDelay, Integer reconciliationMaxLookups) {

    public WorkflowPolicy {
        // Longer than a restart plus the backlog it leaves (docs/decisions.md, "Lease length"): a lease that expires
        // while its intent still waits in the queue re-issues work that was never lost, and the re-issue adds load.
        leaseDuration = or(leaseDuration, Duration.ofSeconds(30));
        paymentLeaseDuration = or(paymentLeaseDuration, Duration.ofSeconds(30));
        retryInitialDelay = or(retryInitialDelay, Duration.ofSeconds(1));
        retryMaxDelay = or(retryMaxDelay, Duration.ofMinutes(1));
        maxAttempts = or(maxAttempts, 8);
        reconciliationInitialDelay = or(reconciliationInitialDelay, Duration.ofSeconds(2));
        reconciliationMaxDelay = or(reconciliationMaxDelay, Duration.ofMinutes(5));
        reconciliationMaxLookups = or(reconciliationMaxLookups, 6);
    }

    public static WorkflowPolicy defaults() {
        return new WorkflowPolicy(null, null, null, null, null, null, null, null);
    }

    public Duration leaseFor(Step step) {
        return switch (step) {
            case AUTHORIZE_PAYMENT, RECONCILE_PAYMENT, VOID_PAYMENT, REFUND_PAYMENT -> paymentLeaseDuration;
            case RESERVE_STOCK, SEND_RECEIPT, RELEASE_STOCK, SEND_CANCELLATION_NOTICE -> leaseDuration;
        };
    }

    /** Back-off after the {@code failedAttempt}-th attempt failed: initial, 2×, 4×, … capped. */
    public Duration retryDelay(int failedAttempt) {
        return backoff(retryInitialDelay, retryMaxDelay, failedAttempt);
    }

    /** Wait before the {@code lookupNumber}-th reconciliation lookup. */
    public Duration reconciliationDelay(int lookupNumber) {
        return backoff(reconciliationInitialDelay, reconciliationMaxDelay, lookupNumber);
    }

    private static Duration backoff(Duration initial, Duration max, int n) {
        Duration d = initial;
        for (int i = 1; i < n && d.compareTo(max) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(max) > 0 ? max : d;
    }

    private static <T> T or(T value, T fallback) {
        return value != null ? value : fallback;
    }
}
