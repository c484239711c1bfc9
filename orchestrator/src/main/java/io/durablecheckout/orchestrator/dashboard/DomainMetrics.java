package io.durablecheckout.orchestrator.dashboard;

import io.durablecheckout.orchestrator.checkout.CheckoutState;
import io.durablecheckout.orchestrator.deadletter.ParkedEvents;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Metrics read from the durable state when Prometheus scrapes (at most once a second), so they are the same on every
 * node and survive restarts: checkouts in flight by state, the age of the oldest one in each state, how far the most
 * overdue one is past its next deadline, duplicate
 * provider notifications ignored, and events parked in the dead-letter queues. The event-driven counters (started, finished, leases, lookups, time in state) are
 * counted by CheckoutSummaryProjection.
 */
@Component
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
public class DomainMetrics {

    private static final Duration FRESH = Duration.ofSeconds(1);

    private final JdbcTemplate jdbc;
    private final Clock clock;
    private volatile Snapshot snapshot = new Snapshot(Instant.EPOCH, Map.of(), Map.of(), Map.of(), 0, Map.of(), 0);

    /** @param holdsExpiring authorized, not captured checkouts whose hold lapses within a day (or has lapsed) */
    private record Snapshot(Instant takenAt, Map<String, Long> inFlight, Map<String, Double> oldestSeconds,
                            Map<String, Double> overdueSeconds, long duplicateNotifications, Map<String, Long> parked,
                            long holdsExpiring) {
    }

    public DomainMetrics(JdbcTemplate jdbc, Clock clock, MeterRegistry meters) {
        this.jdbc = jdbc;
        this.clock = clock;
        for (CheckoutState state : CheckoutState.values()) {
            if (state.isTerminal()) {
                continue;
            }
            String name = state.wireName();
            Gauge.builder("checkout.in.flight", this, m -> m.fresh().inFlight.getOrDefault(name, 0L))
                    .description("checkouts in this non-terminal state now (read model)").tag("state", name)
                    .register(meters);
            Gauge.builder("checkout.state.oldest", this, m -> m.fresh().oldestSeconds.getOrDefault(name, 0.0))
                    .description("seconds the longest-waiting checkout has been in this state").baseUnit("seconds")
                    .tag("state", name).register(meters);
            Gauge.builder("checkout.deadline.overdue", this, m -> m.fresh().overdueSeconds.getOrDefault(name, 0.0))
                    .description("seconds the most overdue checkout in this state is past its next deadline")
                    .baseUnit("seconds").tag("state", name).register(meters);
        }
        for (String processor : ParkedEvents.DEAD_LETTERED) {
            Gauge.builder("checkout.dead.letters", this, m -> m.fresh().parked.getOrDefault(processor, 0L))
                    .description("events parked in this processor's dead-letter queue").tag("processor", processor)
                    .register(meters);
        }
        Gauge.builder("checkout.holds.expiring", this, m -> m.fresh().holdsExpiring)
                .description("authorized, not captured checkouts whose hold lapses within 24 h (or has lapsed)")
                .register(meters);
        FunctionCounter.builder("checkout.callbacks.duplicates", this, m -> m.fresh().duplicateNotifications)
                .description("provider notifications delivered again and ignored (deliveries beyond the first)")
                .register(meters);
    }

    private Snapshot fresh() {
        Snapshot s = snapshot;
        Instant now = clock.instant();
        if (Duration.between(s.takenAt, now).compareTo(FRESH) < 0) {
            return s;
        }
        synchronized (this) {
            if (snapshot != s) {
                return snapshot;
            }
            Map<String, Long> inFlight = new HashMap<>();
            Map<String, Double> oldest = new HashMap<>();
            Map<String, Double> overdue = new HashMap<>();
            jdbc.query("SELECT state, count(*), min(state_entered_at), min(next_deadline) FROM checkout_summary "
                    + "WHERE NOT terminal GROUP BY state", rs -> {
                inFlight.put(rs.getString(1), rs.getLong(2));
                oldest.put(rs.getString(1), secondsSince(rs.getTimestamp(3), now));
                overdue.put(rs.getString(1), secondsSince(rs.getTimestamp(4), now));
            });
            Long duplicates = jdbc.queryForObject(
                    "SELECT coalesce(sum(deliveries - 1), 0) FROM provider_notifications", Long.class);
            Map<String, Long> parked = new HashMap<>();
            jdbc.query("SELECT processinggroup, count(*) FROM deadletterentry GROUP BY 1",
                    rs -> { parked.put(rs.getString(1), rs.getLong(2)); });
            Long expiring = jdbc.queryForObject("SELECT count(*) FROM checkout_summary WHERE NOT terminal AND "
                    + "(view ->> 'holdExpiresAt')::timestamptz < ? AND view -> 'captured' IS NULL", Long.class,
                    java.sql.Timestamp.from(now.plus(Duration.ofHours(24))));
            snapshot = new Snapshot(now, Map.copyOf(inFlight), Map.copyOf(oldest), Map.copyOf(overdue), duplicates == null ? 0 : duplicates,
                    Map.copyOf(parked), expiring == null ? 0 : expiring);
            return snapshot;
        }
    }

    /** Seconds from {@code since} to now, 0 when there is none or it is still ahead. */
    private static double secondsSince(java.sql.Timestamp since, Instant now) {
        return since == null ? 0.0 : Math.max(0, Duration.between(since.toInstant(), now).toMillis() / 1000.0);
    }
}
