package io.durablecheckout.api.checkout;

import java.time.Duration;
import java.util.Objects;

/**
 * The values that shape one checkout's decisions, fixed when the checkout is created and recorded in its first event,
 * so a later configuration change never rewrites decisions already in flight (and a replay decides with them).
 *
 * @param version the version of the rules that read these values; a rule change that must not apply to older
 *                histories bumps it and keeps the old rule for them
 */
public record CheckoutPolicy(int version, Duration leaseDuration, Duration paymentLeaseDuration,
                             Duration retryInitialDelay, Duration retryMaxDelay, int maxAttempts,
                             Duration reconciliationInitialDelay, Duration reconciliationMaxDelay,
                             int reconciliationMaxLookups) {
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
