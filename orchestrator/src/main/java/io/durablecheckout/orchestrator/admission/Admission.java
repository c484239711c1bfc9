package io.durablecheckout.orchestrator.admission;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Back-pressure at the front door: a new checkout is refused (429, {@code Retry-After}) while the backlog of checkouts
 * in flight is at {@code checkout.admission.max-backlog}, instead of being accepted into a queue it cannot leave in
 * time. The backlog is what the workflow still has to work through: checkouts neither finished nor waiting for an
 * operator or a reconciliation timer, as the read model has them (read at most every
 * {@code checkout.admission.refresh}, 200 ms, from its counts by state; a completed checkout under dispute is not
 * work in flight) plus what this node accepted
 * since. Size the limit to what the workflow drains within the lease (docs/reliability.md, "Overload"): then no
 * accepted checkout waits past what its leases allow, and the queue the system keeps stays bounded.
 * <p>
 * A retry of an accepted request (same Idempotency-Key) is answered whatever the backlog; only new work is refused.
 */
@Component
public class Admission {

    private final JdbcTemplate jdbc;
    private final Clock clock;
    private volatile long maxBacklog;
    private volatile Duration refresh;
    private final AtomicLong acceptedSinceCount = new AtomicLong();
    private final Counter refused;
    private volatile long counted;
    private volatile Instant countedAt = Instant.EPOCH;
    private volatile double drainPerSecond = 50; // a cautious start; measured from the counts below

    public Admission(JdbcTemplate jdbc, Clock clock, AdmissionProperties properties, MeterRegistry meters) {
        this.jdbc = jdbc;
        this.clock = clock;
        this.maxBacklog = properties.maxBacklog();
        this.refresh = properties.refresh();
        this.refused = Counter.builder("checkout.admission.refused")
                .description("New checkouts refused with 429 because the backlog was at its limit").register(meters);
        Gauge.builder("checkout.admission.backlog", this, a -> a.counted + a.acceptedSinceCount.get())
                .description("Checkouts in flight as admission counts them").register(meters);
    }

    /** @throws BacklogFullException when the backlog is at its limit (0 or less: no limit) */
    public void admit() {
        if (maxBacklog <= 0) {
            return;
        }
        recountIfStale();
        long backlog = counted + acceptedSinceCount.get();
        if (backlog >= maxBacklog) {
            refused.increment();
            long excess = backlog - maxBacklog + 1;
            long seconds = Math.max(1, Math.min(60, (long) Math.ceil(excess / Math.max(1.0, drainPerSecond))));
            throw new BacklogFullException(backlog, maxBacklog, seconds);
        }
        acceptedSinceCount.incrementAndGet();
    }

    /** Changes the limit at run time (operators, tests); 0 or less: no limit. */
    public void limit(long maxBacklog) {
        this.maxBacklog = maxBacklog;
    }

    public long limit() {
        return maxBacklog;
    }

    /** Changes how often the backlog is counted again. */
    public void refresh(Duration refresh) {
        this.refresh = refresh;
    }

    /** The backlog now, counted afresh. */
    public synchronized long backlog() {
        countedAt = Instant.EPOCH;
        recountIfStale();
        return counted + acceptedSinceCount.get();
    }

    private void recountIfStale() {
        Instant now = clock.instant();
        if (Duration.between(countedAt, now).compareTo(refresh) < 0) {
            return;
        }
        synchronized (this) {
            if (Duration.between(countedAt, clock.instant()).compareTo(refresh) < 0) {
                return;
            }
            long accepted = acceptedSinceCount.getAndSet(0);
            // the counts by state the read model's triggers keep (decision 25): a count over the rows themselves was
            // planned afresh each time among the table's eleven indexes and walked the partial index's dead entries,
            // 3.7-12 ms a call under load (decisions.md §80)
            Long n = jdbc.queryForObject("SELECT coalesce(sum(n), 0) FROM checkout_state_counts WHERE state NOT IN"
                    + " ('completed', 'cancelled', 'manual_review', 'reconciliation_pending', 'awaiting_capture')",
                    Long.class);
            long current = n == null ? 0 : n;
            Instant at = clock.instant();
            double seconds = Duration.between(countedAt, at).toMillis() / 1000.0;
            if (countedAt != Instant.EPOCH && seconds > 0 && seconds < 10) {
                double drained = (counted + accepted - current) / seconds;
                if (drained > 0) {
                    drainPerSecond = 0.8 * drainPerSecond + 0.2 * drained;
                }
            }
            counted = current;
            countedAt = at;
        }
    }

    /** The backlog is at its limit: answered 429 with Retry-After (problem+json). */
    public static final class BacklogFullException extends RuntimeException {
        private final long backlog;
        private final long limit;
        private final long retryAfterSeconds;

        BacklogFullException(long backlog, long limit, long retryAfterSeconds) {
            super("The service is working through " + backlog + " checkouts (limit " + limit
                    + "); retry after " + retryAfterSeconds + " s with the same Idempotency-Key");
            this.backlog = backlog;
            this.limit = limit;
            this.retryAfterSeconds = retryAfterSeconds;
        }

        public long backlog() {
            return backlog;
        }

        public long limit() {
            return limit;
        }

        public long retryAfterSeconds() {
            return retryAfterSeconds;
        }
    }
}
