package io.durablecheckout.orchestrator.cluster;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * The keys of {@code checkout.processing} that say how nodes share the processors' segments (the processors' own
 * shape, segments and batches, is the wiring's {@code EventProcessingConfiguration.ProcessingProperties}).
 *
 * @param nodeId          this node's name in token claims, the deadline log and the operator API: pid@host unless set;
 *                        give each node a stable one, and never the same to two live nodes
 * @param claimTimeout    a segment whose claim was not extended for this long is taken over by another node
 * @param balanceInterval how often a node compares its share of the segments with the live nodes'
 */
@ConfigurationProperties("checkout.processing")
public record ClusterProperties(String nodeId, Duration claimTimeout, Duration balanceInterval) {

    public ClusterProperties {
        nodeId = nodeId != null && !nodeId.isBlank() ? nodeId : ManagementFactory.getRuntimeMXBean().getName();
        claimTimeout = claimTimeout != null ? claimTimeout : Duration.ofSeconds(10);
        balanceInterval = balanceInterval != null ? balanceInterval : Duration.ofSeconds(2);
    }

    /**
     * {@code checkout.commands.*}: a command that lost an append race to another node is run again.
     *
     * @param conflictRetries        how many times (default 8)
     * @param conflictRetryBackoffMs the first pause, doubling per retry (default 10 ms)
     */
    @ConfigurationProperties("checkout.commands")
    public record CommandRetries(Integer conflictRetries, Long conflictRetryBackoffMs) {
        public CommandRetries {
            conflictRetries = conflictRetries != null ? conflictRetries : 8;
            conflictRetryBackoffMs = conflictRetryBackoffMs != null ? conflictRetryBackoffMs : 10L;
        }
    }
}
