package io.durablecheckout.orchestrator.admission;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * {@code checkout.admission.*}.
 *
 * @param maxBacklog checkouts in flight at which new ones are refused with 429 (0 or less: no limit; default 4000)
 * @param refresh    how often the backlog is counted from the read model (default 200 ms)
 */
@ConfigurationProperties("checkout.admission")
public record AdmissionProperties(Long maxBacklog, Duration refresh) {

    public AdmissionProperties {
        maxBacklog = maxBacklog != null ? maxBacklog : 4000L;
        refresh = refresh != null ? refresh : Duration.ofMillis(200);
    }
}
