package io.durablecheckout.orchestrator.dashboard;

import io.durablecheckout.orchestrator.checkout.CheckoutState;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code checkout.dashboard.*}: when a waiting checkout counts as stuck (time in its current state above the state's
 * threshold), and how large a bulk repair may be.
 *
 * @param stuckAfter        per state (wire name, e.g. {@code reconciliation_pending}), overriding the default
 * @param defaultStuckAfter for every non-terminal state without its own threshold
 * @param bulkLimit         most checkouts one bulk retry or cancel acts on
 */
@ConfigurationProperties("checkout.dashboard")
public record DashboardProperties(Map<String, Duration> stuckAfter, Duration defaultStuckAfter, Integer bulkLimit) {

    public DashboardProperties {
        Map<String, Duration> defaults = new LinkedHashMap<>();
        // Leases are 30 s and retries back off to 1 min: a step still pending after a few of those is not normal.
        defaults.put(CheckoutState.CREATED.wireName(), Duration.ofMinutes(2));
        defaults.put(CheckoutState.STOCK_RESERVED.wireName(), Duration.ofMinutes(5));
        defaults.put(CheckoutState.CONFIRMED.wireName(), Duration.ofMinutes(5));
        // Reconciliation backs off to 5 min between lookups; 6 lookups take about 10 min before manual review.
        defaults.put(CheckoutState.RECONCILIATION_PENDING.wireName(), Duration.ofMinutes(15));
        // Manual review has no deadline at all: anything waiting for an operator longer than an hour is overdue.
        defaults.put(CheckoutState.MANUAL_REVIEW.wireName(), Duration.ofHours(1));
        if (stuckAfter != null) {
            defaults.putAll(stuckAfter);
        }
        stuckAfter = Map.copyOf(defaults);
        defaultStuckAfter = defaultStuckAfter == null ? Duration.ofMinutes(10) : defaultStuckAfter;
        bulkLimit = bulkLimit == null ? 1000 : bulkLimit;
    }

    /** The threshold of every non-terminal state. */
    public Map<String, Duration> thresholds() {
        Map<String, Duration> all = new LinkedHashMap<>();
        for (CheckoutState s : CheckoutState.values()) {
            if (!s.isTerminal()) {
                all.put(s.wireName(), stuckAfter.getOrDefault(s.wireName(), defaultStuckAfter));
            }
        }
        return all;
    }
}
