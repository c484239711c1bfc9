package io.durablecheckout.activities.payments;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * {@code checkout.payments.*}.
 *
 * @param providerUrl    base URL of the provider; blank means this application's own simulator, on its own loopback
 *                       server: {@code http://127.0.0.1:<local.checkout.simulator.port>/simulator/provider} (the
 *                       application's port does not serve the simulator)
 * @param connectTimeout failing to connect means the request was never delivered: retryable
 * @param requestTimeout no answer within it means the outcome is unknown, never declined
 * @param maxConcurrentCalls provider calls in flight at once per node: the payments intake's drainers
 *                       ({@link PaymentIntake}, decision 132; resolutions: {@link ProviderCalls}, decision 123); 0: on
 *                       the processor's thread
 */
@ConfigurationProperties("checkout.payments")
public record PaymentsProperties(String providerUrl,
                                 @DefaultValue("1s") Duration connectTimeout,
                                 @DefaultValue("2s") Duration requestTimeout,
                                 @DefaultValue("32") Integer maxConcurrentCalls) {
    public PaymentsProperties {
        maxConcurrentCalls = maxConcurrentCalls != null ? maxConcurrentCalls : 32;
        if (maxConcurrentCalls < 0) {
            throw new IllegalArgumentException("checkout.payments.max-concurrent-calls must be >= 0, was "
                    + maxConcurrentCalls);
        }
    }
}
