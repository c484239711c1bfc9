package io.durablecheckout.orchestrator.retention;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * {@code checkout.retention.*}: when a finished checkout's events leave the hot event table (docs/operations.md,
 * "Retention").
 *
 * @param enabled           runs the move every {@code interval} (default off: nothing moves)
 * @param chargebackWindow  the least time after a checkout's last event before it moves, whatever a tenant sets: a
 *                          refund, chargeback or late notification is expected within it (default 120 days)
 * @param defaultRetention  for tenants without their own {@code tenants.event_retention_days} (default 180 days)
 * @param gapMargin         global indexes kept below every processor's position besides its gaps (default 10,000,
 *                          Axon's largest gap offset)
 * @param batchSize         checkouts per batch, one transaction each (default 100)
 * @param maxBatches        batches per run at most (default 100)
 * @param interval          between runs (default 1 hour)
 */
@ConfigurationProperties("checkout.retention")
public record RetentionProperties(Boolean enabled, Duration chargebackWindow, Duration defaultRetention,
                                  Long gapMargin, Integer batchSize, Integer maxBatches, Duration interval) {

    public RetentionProperties {
        enabled = enabled != null && enabled;
        chargebackWindow = chargebackWindow == null ? Duration.ofDays(120) : chargebackWindow;
        defaultRetention = defaultRetention == null ? Duration.ofDays(180) : defaultRetention;
        gapMargin = gapMargin == null ? 10_000L : gapMargin;
        batchSize = batchSize == null ? 100 : batchSize;
        maxBatches = maxBatches == null ? 100 : maxBatches;
        interval = interval == null ? Duration.ofHours(1) : interval;
        if (chargebackWindow.isNegative() || defaultRetention.isNegative() || gapMargin < 0 || batchSize < 1
                || maxBatches < 1 || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("checkout.retention: negative window or margin, or an empty batch or "
                    + "interval (chargeback-window " + chargebackWindow + ", default-retention " + defaultRetention
                    + ", gap-margin " + gapMargin + ", batch-size " + batchSize + ", max-batches " + maxBatches
                    + ", interval " + interval + ")");
        }
    }

    /** A tenant's retention after a checkout's last event: its own days or the default, never below the window. */
    public Duration retentionOf(Number tenantDays) {
        Duration own = tenantDays == null ? defaultRetention : Duration.ofDays(tenantDays.longValue());
        return own.compareTo(chargebackWindow) < 0 ? chargebackWindow : own;
    }
}
