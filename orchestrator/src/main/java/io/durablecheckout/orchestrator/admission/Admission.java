package io.durablecheckout.orchestrator.admission;

import io.durablecheckout.api.values.TenantId;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Back-pressure at the front door, per tenant: a new checkout is refused (429, {@code Retry-After}) while its tenant's
 * backlog of checkouts in flight is at its share of {@code checkout.admission.max-backlog}, instead of being accepted
 * into a queue it cannot leave in time. The backlog is what the workflow still has to work through: checkouts neither
 * finished nor waiting for an operator or a reconciliation timer, as the read model has them per tenant (read at most
 * every {@code checkout.admission.refresh}, 200 ms, from its counts by tenant and state; a completed checkout under
 * dispute is not work in flight) plus what this node accepted since. Size the limit to what the workflow drains
 * within the lease (docs/reliability.md, "Overload"): then no accepted checkout waits past what its leases allow.
 * <p>
 * A tenant's share (decision 124) is the limit divided by the tenants with work in flight, the asking one included:
 * alone, a tenant has the whole limit, as before; a second tenant that arrives while the first fills it is under its
 * share and admitted, and the first is refused until it drains below its own. So one tenant's flood never closes the
 * door on the others; the total may pass the limit by the newcomers' shares while the flood drains.
 * <p>
 * A retry of an accepted request (same Idempotency-Key) is answered whatever the backlog; only new work is refused.
 */
@Component
public class Admission {

    private final JdbcTemplate jdbc;
    private final Clock clock;
    private volatile long maxBacklog;
    private volatile Duration refresh;
    /** Accepted on this node since the last count, per tenant. */
    private final Map<String, AtomicLong> acceptedSince = new ConcurrentHashMap<>();
    private final Counter refused;
    /** In flight per tenant at the last count (tenants with none are absent). */
    private volatile Map<String, Long> counted = Map.of();
    private volatile Instant countedAt = Instant.EPOCH;
    private volatile double drainPerSecond = 50; // a cautious start; measured from the counts below

    public Admission(JdbcTemplate jdbc, Clock clock, AdmissionProperties properties, MeterRegistry meters) {
        this.jdbc = jdbc;
        this.clock = clock;
        this.maxBacklog = properties.maxBacklog();
        this.refresh = properties.refresh();
        this.refused = Counter.builder("checkout.admission.refused")
                .description("New checkouts refused with 429 because the tenant's backlog was at its share")
                .register(meters);
        Gauge.builder("checkout.admission.backlog", this, Admission::total)
                .description("Checkouts in flight as admission counts them").register(meters);
    }

    /** @throws BacklogFullException when {@code tenant}'s backlog is at its share of the limit (0 or less: none) */
    public void admit(TenantId tenant) {
        if (maxBacklog <= 0) {
            return;
        }
        recountIfStale();
        String id = tenant.value();
        AtomicLong accepted = acceptedSince.computeIfAbsent(id, k -> new AtomicLong());
        Map<String, Long> now = counted;
        int active = 1;
        for (Map.Entry<String, AtomicLong> e : acceptedSince.entrySet()) {
            if (!e.getKey().equals(id) && (e.getValue().get() > 0 || now.getOrDefault(e.getKey(), 0L) > 0)) {
                active++;
            }
        }
        for (Map.Entry<String, Long> e : now.entrySet()) {
            if (!e.getKey().equals(id) && e.getValue() > 0 && !acceptedSince.containsKey(e.getKey())) {
                active++;
            }
        }
        long limit = maxBacklog;
        long share = Math.max(1, limit / active);
        long mine = now.getOrDefault(id, 0L) + accepted.incrementAndGet();
        if (mine > share) {
            accepted.decrementAndGet();
            refused.increment();
            long backlog = mine - 1;
            long excess = backlog - share + 1;
            double drain = Math.max(1.0, drainPerSecond / active); // this tenant's part of what the workflow drains
            long seconds = Math.max(1, Math.min(60, (long) Math.ceil(excess / drain)));
            throw new BacklogFullException(id, backlog, share, limit, active, seconds);
        }
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

    /** The backlog of every tenant now, counted afresh. */
    public synchronized long backlog() {
        countedAt = Instant.EPOCH;
        recountIfStale();
        return total();
    }

    /** {@code tenant}'s backlog now, counted afresh. */
    public synchronized long backlog(TenantId tenant) {
        countedAt = Instant.EPOCH;
        recountIfStale();
        AtomicLong accepted = acceptedSince.get(tenant.value());
        return counted.getOrDefault(tenant.value(), 0L) + (accepted == null ? 0 : accepted.get());
    }

    private long total() {
        long sum = 0;
        for (long n : counted.values()) {
            sum += n;
        }
        for (AtomicLong n : acceptedSince.values()) {
            sum += n.get();
        }
        return sum;
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
            long accepted = 0;
            for (AtomicLong n : acceptedSince.values()) {
                accepted += n.getAndSet(0);
            }
            long before = 0;
            for (long n : counted.values()) {
                before += n;
            }
            // the counts by tenant and state the read model's triggers keep (decision 25): a count over the rows
            // themselves was planned afresh each time among the table's eleven indexes and walked the partial index's
            // dead entries, 3.7-12 ms a call under load (decisions.md §80)
            Map<String, Long> byTenant = new HashMap<>();
            jdbc.query("SELECT tenant_id, sum(n) FROM checkout_state_counts WHERE state NOT IN"
                    + " ('completed', 'cancelled', 'manual_review', 'reconciliation_pending',"
                    + " 'awaiting_capture')"
                    + " GROUP BY tenant_id HAVING sum(n) > 0", rs -> {
                byTenant.put(rs.getString(1), rs.getLong(2));
            });
            long current = 0;
            for (long n : byTenant.values()) {
                current += n;
            }
            Instant at = clock.instant();
            double seconds = Duration.between(countedAt, at).toMillis() / 1000.0;
            if (countedAt != Instant.EPOCH && seconds > 0 && seconds < 10) {
                double drained = (before + accepted - current) / seconds;
                if (drained > 0) {
                    drainPerSecond = 0.8 * drainPerSecond + 0.2 * drained;
                }
            }
            counted = Map.copyOf(byTenant);
            countedAt = at;
        }
    }

    /** The tenant's backlog is at its share: answered 429 with Retry-After (problem+json). */
    public static final class BacklogFullException extends RuntimeException {
        private final String tenant;
        private final long backlog;
        private final long share;
        private final long limit;
        private final int tenantsActive;
        private final long retryAfterSeconds;

        BacklogFullException(String tenant, long backlog, long share, long limit, int tenantsActive,
                             long retryAfterSeconds) {
            super("Tenant " + tenant + " has " + backlog + " checkouts in flight, its share of the limit ("
                    + limit + " across " + tenantsActive + (tenantsActive == 1 ? " tenant" : " tenants")
                    + " with work in flight) is " + share + "; retry after " + retryAfterSeconds
                    + " s with the same Idempotency-Key");
            this.tenant = tenant;
            this.backlog = backlog;
            this.share = share;
            this.limit = limit;
            this.tenantsActive = tenantsActive;
            this.retryAfterSeconds = retryAfterSeconds;
        }

        public String tenant() {
            return tenant;
        }

        /** The tenant's checkouts in flight. */
        public long backlog() {
            return backlog;
        }

        /** The tenant's share of the limit. */
        public long share() {
            return share;
        }

        /** The limit across tenants ({@code checkout.admission.max-backlog}). */
        public long limit() {
            return limit;
        }

        public int tenantsActive() {
            return tenantsActive;
        }

        public long retryAfterSeconds() {
            return retryAfterSeconds;
        }
    }
}
