package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.checkout.CheckoutPolicy;
import io.durablecheckout.api.values.CaptureMode;
import io.durablecheckout.api.values.Step;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * Durations and limits of the workflow. The configured values are read once per checkout, when it is created, and
 * recorded in its {@code CheckoutCreatedEvent} as a {@link CheckoutPolicy}; every later decision of that checkout
 * reads the recorded values ({@link #of(CheckoutPolicy)}), so changing the configuration changes new checkouts only.
 *
 * @param leaseDuration            how long a worker owns a forward step or compensation before a new owner is sent
 * @param paymentLeaseDuration     the same for payment steps; longer than the provider request timeout
 * @param retryInitialDelay        first back-off after a retryable failure, doubling per attempt
 * @param retryMaxDelay            back-off ceiling
 * @param maxAttempts              attempts of one operation (failures or expired leases) before manual review
 * @param reconciliationInitialDelay first lookup after an unknown payment outcome, doubling per lookup
 * @param reconciliationMaxDelay   lookup back-off ceiling
 * @param reconciliationMaxLookups lookups that find nothing conclusive before manual review
 * @param holdValidity             how long the provider holds an authorization before it lapses (Stripe cards: 7 days)
 * @param customerActionTimeout    how long a payment waits for the customer's authentication (3-D Secure)
 * @param recordRulesVersion       the rules version new checkouts record: this code's newest unless set; an older one
 *                                 (from {@link #QUEUED_INTENTS_WAIT}) only to measure a rule's cost on today's code
 */
@ConfigurationProperties("checkout.workflow")
public record WorkflowPolicy(Duration leaseDuration, Duration paymentLeaseDuration, Duration retryInitialDelay,
                             Duration retryMaxDelay, Integer maxAttempts, Duration reconciliationInitialDelay,
                             Duration reconciliationMaxDelay, Integer reconciliationMaxLookups,
                             Duration holdValidity, Duration customerActionTimeout, Integer recordRulesVersion) {

    /** The version of the rules that read these values (see {@link CheckoutPolicy#version()}). */
    public static final int RULES_VERSION = 3;
    /**
     * From this version on, a lease nobody claimed expires only once its step's processor has passed the intent
     * (version 1: deferred once, then expired, even while the intent still waited in the processor's queue).
     */
    public static final int QUEUED_INTENTS_WAIT = 2;
    /**
     * From this version on, the payment is captured as a step of its own (after the receipt: at once, or when the
     * tenant calls capture), the hold's lapse is a deadline, and a compensation refunds what a capture took and voids
     * otherwise (version 2 and before: no capture step; refund once the receipt was sent, void before).
     */
    public static final int CAPTURES = 3;

    @org.springframework.boot.context.properties.bind.ConstructorBinding
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
        holdValidity = or(holdValidity, Duration.ofDays(7));
        customerActionTimeout = or(customerActionTimeout, Duration.ofMinutes(15));
        recordRulesVersion = or(recordRulesVersion, RULES_VERSION);
        if (recordRulesVersion < QUEUED_INTENTS_WAIT || recordRulesVersion > RULES_VERSION) {
            throw new IllegalArgumentException("checkout.workflow.record-rules-version must be between "
                    + QUEUED_INTENTS_WAIT + " and " + RULES_VERSION + ", was " + recordRulesVersion);
        }
    }

    /** With this code's newest rules. */
    public WorkflowPolicy(Duration leaseDuration, Duration paymentLeaseDuration, Duration retryInitialDelay,
                          Duration retryMaxDelay, Integer maxAttempts, Duration reconciliationInitialDelay,
                          Duration reconciliationMaxDelay, Integer reconciliationMaxLookups, Duration holdValidity,
                          Duration customerActionTimeout) {
        this(leaseDuration, paymentLeaseDuration, retryInitialDelay, retryMaxDelay, maxAttempts,
                reconciliationInitialDelay, reconciliationMaxDelay, reconciliationMaxLookups, holdValidity,
                customerActionTimeout, null);
    }

    /** With the default hold validity. */
    public WorkflowPolicy(Duration leaseDuration, Duration paymentLeaseDuration, Duration retryInitialDelay,
                          Duration retryMaxDelay, Integer maxAttempts, Duration reconciliationInitialDelay,
                          Duration reconciliationMaxDelay, Integer reconciliationMaxLookups) {
        this(leaseDuration, paymentLeaseDuration, retryInitialDelay, retryMaxDelay, maxAttempts,
                reconciliationInitialDelay, reconciliationMaxDelay, reconciliationMaxLookups, null, null);
    }

    public static WorkflowPolicy defaults() {
        return new WorkflowPolicy(null, null, null, null, null, null, null, null, null, null, null);
    }

    /** The values to record in a new checkout. */
    public CheckoutPolicy recorded() {
        return new CheckoutPolicy(recordRulesVersion, leaseDuration, paymentLeaseDuration, retryInitialDelay, retryMaxDelay,
                maxAttempts, reconciliationInitialDelay, reconciliationMaxDelay, reconciliationMaxLookups,
                CaptureMode.ON_CONFIRMATION, holdValidity, customerActionTimeout);
    }

    /** The policy a checkout recorded when it was created. */
    public static WorkflowPolicy of(CheckoutPolicy recorded) {
        if (recorded.version() > RULES_VERSION) {
            throw new IllegalStateException("policy version " + recorded.version() + " is newer than this code's rules ("
                    + RULES_VERSION + ")");
        }
        return new WorkflowPolicy(recorded.leaseDuration(), recorded.paymentLeaseDuration(),
                recorded.retryInitialDelay(), recorded.retryMaxDelay(), recorded.maxAttempts(),
                recorded.reconciliationInitialDelay(), recorded.reconciliationMaxDelay(),
                recorded.reconciliationMaxLookups(), recorded.holdValidity(), recorded.customerActionTimeout());
    }

    /** The lease length of {@code step}: its workflow row says whether it is a payment's. */
    public Duration leaseFor(Step step) {
        return Workflow.paymentLease(step) ? paymentLeaseDuration : leaseDuration;
    }

    /** Back-off after the {@code failedAttempt}-th attempt failed: initial, 2×, 4×, … capped. */
    public Duration retryDelay(int failedAttempt) {
        return backoff(retryInitialDelay, retryMaxDelay, failedAttempt);
    }

    /** Wait before the {@code lookupNumber}-th reconciliation lookup. */
    public Duration reconciliationDelay(int lookupNumber) {
        return backoff(reconciliationInitialDelay, reconciliationMaxDelay, lookupNumber);
    }

    /** The {@code n}-th delay of a capped doubling back-off: initial, 2×, 4×, … at most {@code max} (n ≥ 1). */
    public static Duration backoff(Duration initial, Duration max, int n) {
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
