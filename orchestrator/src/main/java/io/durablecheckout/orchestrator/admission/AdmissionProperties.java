package io.durablecheckout.orchestrator.admission;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * {@code checkout.admission.*}.
 *
 * @param maxBacklog checkouts in flight at which new ones are refused with 429 (0 or less: no limit; default 4000)
 * @param refresh    how often the backlog is counted from the read model (default 200 ms)
 * @param maxWait    the backlog is also bounded by what the workflow drains in this time (Little's law: an admitted
 *                   checkout waits about this long behind the others at most; 0: no such bound; default 10 s)
 * @param minBacklog the drain-rate bound never goes below this, so a quiet system takes a burst while it measures
 *                   (default 100)
 */
@ConfigurationProperties("checkout.admission")
public record AdmissionProperties(Long maxBacklog, Duration refresh, Duration maxWait, Long minBacklog) {

    public AdmissionProperties {
        maxBacklog = maxBacklog != null ? maxBacklog : 4000L;
        refresh = refresh != null ? refresh : Duration.ofMillis(200);
        maxWait = maxWait != null ? maxWait : Duration.ofSeconds(10);
        minBacklog = minBacklog != null ? minBacklog : 100L;
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("checkout.admission.max-wait must not be negative, was " + maxWait);
        }
    }
}
