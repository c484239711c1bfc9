package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CaptureMode;

import java.time.Duration;
import java.util.Objects;

/**
 * The values that shape one checkout's decisions, fixed when the checkout is created and recorded in its first event,
 * so a later configuration change never rewrites decisions already in flight (and a replay decides with them).
 *
 * @param version the version of the rules that read these values; a rule change that must not apply to older
 *                histories bumps it and keeps the old rule for them
 * @param capture when the payment is captured (version 3 on; {@code null} before: no capture step)
 * @param holdValidity how long the provider holds an authorization before it lapses (version 3 on)
 * @param customerActionTimeout how long a payment waits for the customer's authentication (3-D Secure; version 3 on)
 */
public record CheckoutPolicy(int version, Duration leaseDuration, Duration paymentLeaseDuration,
                             Duration retryInitialDelay, Duration retryMaxDelay, int maxAttempts,
                             Duration reconciliationInitialDelay, Duration reconciliationMaxDelay,
                             int reconciliationMaxLookups, CaptureMode capture, Duration holdValidity,
                             Duration customerActionTimeout) {

    /** A policy of the rules before capture (version 1 and 2 histories, and tests of them). */
    public CheckoutPolicy(int version, Duration leaseDuration, Duration paymentLeaseDuration,
                          Duration retryInitialDelay, Duration retryMaxDelay, int maxAttempts,
                          Duration reconciliationInitialDelay, Duration reconciliationMaxDelay,
                          int reconciliationMaxLookups) {
        this(version, leaseDuration, paymentLeaseDuration, retryInitialDelay, retryMaxDelay, maxAttempts,
                reconciliationInitialDelay, reconciliationMaxDelay, reconciliationMaxLookups, null, null, null);
    }

    /** The same values with {@code mode} as the capture mode. */
    public CheckoutPolicy capturing(CaptureMode mode) {
        return new CheckoutPolicy(version, leaseDuration, paymentLeaseDuration, retryInitialDelay, retryMaxDelay,
                maxAttempts, reconciliationInitialDelay, reconciliationMaxDelay, reconciliationMaxLookups, mode,
                holdValidity, customerActionTimeout);
    }

    public CheckoutPolicy {
        if (version < 1) throw new IllegalArgumentException("policy version must be >= 1, was " + version);
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        Objects.requireNonNull(paymentLeaseDuration, "paymentLeaseDuration");
        Objects.requireNonNull(retryInitialDelay, "retryInitialDelay");
        Objects.requireNonNull(retryMaxDelay, "retryMaxDelay");
        Objects.requireNonNull(reconciliationInitialDelay, "reconciliationInitialDelay");
        Objects.requireNonNull(reconciliationMaxDelay, "reconciliationMaxDelay");
    }
}
