package io.durablecheckout.activities;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * The lease heartbeats of {@code checkout.activities.*} (docs/leases-and-fencing.md): a claim {@code leaseClaimDelay}
 * after picking up an intent with less than {@code leaseClaimMargin} of its lease left, if the work still runs; then
 * one every {@code heartbeatInterval} (keep it at most a third of the shortest lease) for at most
 * {@code heartbeatMaxHold}.
 */
@ConfigurationProperties("checkout.activities")
public record HeartbeatProperties(Duration leaseClaimMargin, Duration leaseClaimDelay, Duration heartbeatInterval,
                                  Duration heartbeatMaxHold) {

    public HeartbeatProperties {
        leaseClaimMargin = leaseClaimMargin != null ? leaseClaimMargin : Duration.ofSeconds(20);
        leaseClaimDelay = leaseClaimDelay != null ? leaseClaimDelay : Duration.ofSeconds(1);
        heartbeatInterval = heartbeatInterval != null ? heartbeatInterval : Duration.ofSeconds(10);
        heartbeatMaxHold = heartbeatMaxHold != null ? heartbeatMaxHold : Duration.ofSeconds(60);
    }
}
