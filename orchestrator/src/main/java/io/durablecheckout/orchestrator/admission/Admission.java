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
 * dispute is not work in flight) plus what this node accepted since.
 * <p>
 * The limit follows what the workflow drains (decision 134): it is the smaller of {@code max-backlog} and
 * the checkouts that left flight in the last {@code max-wait} at the measured rate (Little's law), never below
 * {@code min-backlog}. A slow provider lowers the rate and with it the limit, so an accepted checkout waits about
 * {@code max-wait} behind the others, not for as long as a fixed number of them takes; a stalled workflow takes no more
 * than {@code min-backlog}. The rate is measured from the read model's counts of checkouts that left flight (every
 * node's completions, so several nodes measure the same rate).
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
    private volatile Duration maxWait;
    private final long minBacklog;
    /** Accepted on this node since the last count, per tenant. */
    private final Map<String, AtomicLong> acceptedSince = new ConcurrentHashMap<>();
    private final Counter refused;
    /** In flight per tenant at the last count (tenants with none are absent). */
    private volatile Map<String, Long> counted = Map.of();
    private volatile Instant countedAt = Instant.EPOCH;
    private volatile double drainPerSecond = 50; // a cautious start; measured from the counts below
    /** Checkouts out of flight (finished or waiting on a person or a timer) at the last count; -1: not counted yet. */
    private volatile long leftAtCount = -1;

    public Admission(JdbcTemplate jdbc, Clock clock, AdmissionProperties properties, MeterRegistry meters) {
        this.jdbc = jdbc;
        this.clock = clock;
        this.maxBacklog = properties.maxBacklog();
        this.refresh = properties.refresh();
        this.maxWait = properties.maxWait();
        this.minBacklog = properties.minBacklog();
        this.refused = Counter.builder("checkout.admission.refused")
                .description("New checkouts refused with 429 because the tenant's backlog was at its share")
                .register(meters);
        Gauge.builder("checkout.admission.backlog", this, Admission::total)
                .description("Checkouts in flight as admission counts them").register(meters);
        Gauge.builder("checkout.admission.limit", this, Admission::effectiveLimit)
                .description("The backlog limit now: max-backlog, or less when the drain rate times max-wait is less")
                .register(meters);
        Gauge.builder("checkout.admission.drain", this, a -> a.drainPerSecond)
                .description("Checkouts leaving flight per second, as admission measures them").register(meters);
    }

    /** @throws BacklogFullException when {@code tenant}'s backlog is at its share of the limit (0 or less: none) */
    public void admit(TenantId tenant) {
        decide(tenant, true);
    }

    /**
     * Whether {@link #admit} would refuse {@code tenant} now, admitting nothing: a tenant over its share is refused
     * before its submission opens a transaction (a flood's refusals cost reads, not a rolled-back write each).
     *
     * @throws BacklogFullException as {@link #admit} would
     */
    public void check(TenantId tenant) {
        decide(tenant, false);
    }

    private void decide(TenantId tenant, boolean take) {
        if (maxBacklog <= 0) {
            return;
        }
        recount(false);
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
        long limit = effectiveLimit();
        long share = Math.max(1, limit / active);
        long mine = now.getOrDefault(id, 0L) + (take ? accepted.incrementAndGet() : accepted.get() + 1);
        if (mine > share) {
            if (take) {
                accepted.decrementAndGet();
            }
            refused.increment();
            long backlog = mine - 1;
            long excess = backlog - share + 1;
            double drain = Math.max(1.0, drainPerSecond / active); // this tenant's part of what the workflow drains
            long seconds = Math.max(1, Math.min(60, (long) Math.ceil(excess / drain)));
            throw new BacklogFullException(id, backlog, share, limit, active, seconds, limit < maxBacklog
                    ? String.format(java.util.Locale.ROOT, " (what the workflow drains in %d s at %.1f/s)",
                    maxWait.toSeconds(), drainPerSecond) : "");
        }
    }

    /** Changes the limit at run time (operators, tests); 0 or less: no limit. */
    public void limit(long maxBacklog) {
        this.maxBacklog = maxBacklog;
    }

    public long limit() {
        return maxBacklog;
    }

    /** Changes the drain-rate bound's wait at run time (tests); zero: no such bound. */
    public void maxWait(Duration maxWait) {
        this.maxWait = maxWait;
    }

    /**
     * The limit in force: {@code max-backlog}, or what the workflow drains in {@code max-wait} when that is less,
     * never below {@code min-backlog} (nor above {@code max-backlog}).
     */
    public long effectiveLimit() {
        long limit = maxBacklog;
        if (limit <= 0 || maxWait.isZero()) {
            return limit;
        }
        long drained = (long) (drainPerSecond * maxWait.toMillis() / 1000.0);
        return Math.min(limit, Math.max(minBacklog, drained));
    }

    /** Checkouts leaving flight per second, as last measured. */
    public double drainPerSecond() {
        return drainPerSecond;
    }

    /** Changes how often the backlog is counted again. */
    public void refresh(Duration refresh) {
        this.refresh = refresh;
    }

    /** The backlog of every tenant now, counted afresh. */
    public synchronized long backlog() {
        recount(true);
        return total();
    }

    /** {@code tenant}'s backlog now, counted afresh. */
    public synchronized long backlog(TenantId tenant) {
        recount(true);
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

    /** Counts again if the last count is older than {@code refresh} (or {@code now}: in any case). */
    private void recount(boolean now) {
        if (!now && Duration.between(countedAt, clock.instant()).compareTo(refresh) < 0) {
            return;
        }
        synchronized (this) {
            if (!now && Duration.between(countedAt, clock.instant()).compareTo(refresh) < 0) {
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
            long[] left = {0};
            // the counts by tenant and state the read model's triggers keep (decision 25): a count over the rows
            // themselves was planned afresh each time among the table's eleven indexes and walked the partial index's
            // dead entries, 3.7-12 ms a call under load (decisions.md §80)
            Map<String, Long> byTenant = new HashMap<>();
            jdbc.query("SELECT tenant_id, sum(n) FILTER (WHERE state NOT IN " + OUT_OF_FLIGHT + "),"
                    + " sum(n) FILTER (WHERE state IN " + OUT_OF_FLIGHT + ")"
                    + " FROM checkout_state_counts GROUP BY tenant_id", rs -> {
                long inFlight = rs.getLong(2);
                if (inFlight > 0) {
                    byTenant.put(rs.getString(1), inFlight);
                }
                left[0] += rs.getLong(3);
            });
            long current = 0;
            for (long n : byTenant.values()) {
                current += n;
            }
            Instant at = clock.instant();
            double seconds = Duration.between(countedAt, at).toMillis() / 1000.0;
            // Checkouts that left flight since the last count, whichever node accepted them. Only an interval with
            // work in flight at both ends measures the rate (one that ran out of work drained what it had, not what it
            // could); a busy one that drained nothing does count: a stalled workflow admits little.
            if (leftAtCount >= 0 && seconds > 0 && seconds < 10 && before > 0 && current > 0) {
                double drained = Math.max(0, left[0] - leftAtCount) / seconds;
                drainPerSecond = 0.8 * drainPerSecond + 0.2 * drained;
            }
            leftAtCount = left[0];
            counted = Map.copyOf(byTenant);
            countedAt = at;
        }
    }

    /** States out of flight: finished, or waiting on a person, a reconciliation timer or the tenant's capture call. */
    private static final String OUT_OF_FLIGHT = "('completed', 'cancelled', 'manual_review', 'reconciliation_pending',"
            + " 'awaiting_capture')";

    /** The tenant's backlog is at its share: answered 429 with Retry-After (problem+json). */
    public static final class BacklogFullException extends RuntimeException {
        private final String tenant;
        private final long backlog;
        private final long share;
        private final long limit;
        private final int tenantsActive;
        private final long retryAfterSeconds;

        BacklogFullException(String tenant, long backlog, long share, long limit, int tenantsActive,
                             long retryAfterSeconds, String limitReason) {
            super("Tenant " + tenant + " has " + backlog + " checkouts in flight, its share of the limit ("
                    + limit + limitReason + " across " + tenantsActive + (tenantsActive == 1 ? " tenant" : " tenants")
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
