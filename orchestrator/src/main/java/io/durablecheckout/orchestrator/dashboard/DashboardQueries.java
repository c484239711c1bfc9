package io.durablecheckout.orchestrator.dashboard;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.durablecheckout.orchestrator.readmodel.CheckoutView;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The dashboard's reads of checkout_summary. Pages are keyset pages over (created_at, checkout_id), newest first: a
 * page costs the same at row 50 as at row 1,000,000 (V60's indexes; docs/benchmarks.md).
 */
@Component
public class DashboardQueries {

    static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** Payment outcome not known: reconciliation running, or a manual review blocked on the payment's outcome. */
    static final String PAYMENT_UNKNOWN_SQL = "(state IN ('payment_unknown', 'reconciliation_pending') OR (state = "
            + "'manual_review' AND view -> 'manualReview' ->> 'blockedStep' IN ('authorize-payment', 'reconcile-payment')))";
    /** A step being tried again: a retry scheduled, a lease expired, or an attempt after the first in flight. */
    /**
     * A step being tried again: a retry scheduled, a lease expired, or an attempt after the first in flight. Written
     * exactly as V61's partial index predicate, so the planner uses it.
     */
    static final String RETRYING_SQL = "jsonb_path_exists(view, '$.activities.* ? (@.status == \"retry_scheduled\" "
            + "|| @.status == \"lease_expired\" || (@.status == \"in_flight\" && @.attempt > 1))')";

    private final JdbcTemplate jdbc;
    private final DashboardProperties properties;
    private final Clock clock;

    public DashboardQueries(JdbcTemplate jdbc, DashboardProperties properties, Clock clock) {
        this.jdbc = jdbc;
        this.properties = properties;
        this.clock = clock;
    }

    /** One row of the list. */
    public record Row(String checkoutId, String tenantId, String state, boolean terminal, long amountMinor,
                      String currency, Instant createdAt, Instant stateSince, long ageSeconds, long inStateSeconds,
                      Instant nextDeadline, String waitingReason, String lastFailure, boolean stuck, long version,
                      boolean cancellationRequested, String cancelReason, Instant unknownSince, Long unknownForSeconds) {
    }

    public record Page(List<Row> rows, String nextCursor, long tookMicros) {
    }

    public Page list(CheckoutFilter filter, String cursor, int limit) {
        long started = System.nanoTime();
        Instant now = clock.instant();
        List<Object> args = new ArrayList<>();
        StringBuilder sql = new StringBuilder("SELECT view, state_entered_at FROM checkout_summary WHERE ");
        where(filter, now, sql, args);
        if (cursor != null && !cursor.isBlank()) {
            Cursor c = Cursor.decode(cursor);
            sql.append(" AND (created_at, checkout_id) < (?, ?)");
            args.add(Timestamp.from(c.createdAt()));
            args.add(c.checkoutId());
        }
        sql.append(" ORDER BY created_at DESC, checkout_id DESC LIMIT ?");
        args.add(limit + 1);
        List<Row> rows = jdbc.query(sql.toString(), (rs, i) -> row(read(rs.getString(1)),
                rs.getTimestamp(2) == null ? null : rs.getTimestamp(2).toInstant(), now), args.toArray());
        String next = null;
        if (rows.size() > limit) {
            rows = rows.subList(0, limit);
            Row last = rows.get(limit - 1);
            next = new Cursor(last.createdAt(), last.checkoutId()).encode();
        }
        return new Page(List.copyOf(rows), next, (System.nanoTime() - started) / 1000);
    }

    /** Ids (and versions) of every checkout the filter matches, up to {@code max}: what a bulk action acts on. */
    public List<Map.Entry<String, Long>> ids(CheckoutFilter filter, int max, java.util.Set<String> states) {
        List<Object> args = new ArrayList<>();
        StringBuilder sql = new StringBuilder("SELECT checkout_id, version FROM checkout_summary WHERE ");
        where(filter, clock.instant(), sql, args);
        sql.append(" AND state = ANY(?)");
        args.add(states.toArray(String[]::new));
        sql.append(" ORDER BY created_at DESC, checkout_id DESC LIMIT ?");
        args.add(max);
        return jdbc.query(sql.toString(), (rs, i) -> Map.entry(rs.getString(1), rs.getLong(2)), args.toArray());
    }

    /** How many checkouts the filter matches, by state. */
    public Map<String, Long> countByState(CheckoutFilter filter) {
        List<Object> args = new ArrayList<>();
        StringBuilder sql = new StringBuilder("SELECT state, count(*) FROM checkout_summary WHERE ");
        where(filter, clock.instant(), sql, args);
        sql.append(" GROUP BY state ORDER BY state");
        Map<String, Long> counts = new LinkedHashMap<>();
        jdbc.query(sql.toString(), rs -> {
            counts.put(rs.getString(1), rs.getLong(2));
        }, args.toArray());
        return counts;
    }

    /** Live counts for the header: every state, and the waiting ones that are stuck, retrying or unknown. */
    public Map<String, Object> counts(String tenant) {
        long started = System.nanoTime();
        Map<String, Object> out = new LinkedHashMap<>();
        Map<String, Long> byState = new LinkedHashMap<>();
        // kept exact by V62's triggers: no scan of checkout_summary
        jdbc.query("SELECT state, sum(n) FROM checkout_state_counts" + (tenant == null ? "" : " WHERE tenant_id = ?")
                + " GROUP BY state HAVING sum(n) > 0 ORDER BY state", rs -> {
            byState.put(rs.getString(1), rs.getLong(2));
        }, tenant == null ? new Object[0] : new Object[]{tenant});
        out.put("byState", byState);
        Instant now = clock.instant();
        List<Object> args = new ArrayList<>();
        String stuck = stuckSql(now, args);
        String tenantSql = "";
        if (tenant != null) {
            tenantSql = " AND tenant_id = ?";
            args.add(tenant);
        }
        jdbc.query("SELECT count(*) FILTER (WHERE " + stuck + "), count(*) FILTER (WHERE " + RETRYING_SQL + "), "
                + "count(*) FILTER (WHERE " + PAYMENT_UNKNOWN_SQL + "), count(*) FROM checkout_summary WHERE NOT terminal"
                + tenantSql, rs -> {
            out.put("stuck", rs.getLong(1));
            out.put("retrying", rs.getLong(2));
            out.put("paymentUnknown", rs.getLong(3));
            out.put("waiting", rs.getLong(4));
        }, args.toArray());
        out.put("thresholds", Presentation.human(properties.thresholds()));
        out.put("tookMicros", (System.nanoTime() - started) / 1000);
        return out;
    }

    /** Amounts in non-terminal states by state and age, and the oldest payments whose outcome is not known. */
    public Map<String, Object> moneyAtRisk(String tenant) {
        Instant now = clock.instant();
        List<Object> args = new ArrayList<>();
        String tenantSql = "";
        if (tenant != null) {
            tenantSql = " AND tenant_id = ?";
            args.add(tenant);
        }
        List<Map<String, Object>> byState = new ArrayList<>();
        Object[] bucketArgs = new Object[args.size() + 3];
        bucketArgs[0] = Timestamp.from(now.minus(Duration.ofMinutes(5)));
        bucketArgs[1] = Timestamp.from(now.minus(Duration.ofHours(1)));
        bucketArgs[2] = Timestamp.from(now.minus(Duration.ofHours(24)));
        for (int i = 0; i < args.size(); i++) {
            bucketArgs[3 + i] = args.get(i);
        }
        jdbc.query("""
                SELECT state, view -> 'amount' ->> 'currency' AS currency,
                       CASE WHEN state_entered_at >= ? THEN 'under 5 min' WHEN state_entered_at >= ? THEN '5 min to 1 h'
                            WHEN state_entered_at >= ? THEN '1 h to 24 h' ELSE 'over 24 h' END AS age,
                       count(*), sum((view -> 'amount' ->> 'minor')::bigint)
                FROM checkout_summary WHERE NOT terminal""" + tenantSql + " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3", rs -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("state", rs.getString(1));
            m.put("currency", rs.getString(2));
            m.put("age", rs.getString(3));
            m.put("count", rs.getLong(4));
            m.put("amountMinor", rs.getLong(5));
            byState.add(m);
        }, bucketArgs);
        // unknown since the first unknown event, not since the current state (a lookup round resets that)
        List<Row> oldestUnknown = jdbc.query("SELECT view, state_entered_at FROM checkout_summary WHERE NOT terminal AND "
                        + PAYMENT_UNKNOWN_SQL + tenantSql + " ORDER BY created_at LIMIT 50",
                (rs, i) -> row(read(rs.getString(1)), rs.getTimestamp(2) == null ? null : rs.getTimestamp(2).toInstant(),
                        now), args.toArray());
        oldestUnknown = oldestUnknown.stream()
                .sorted(java.util.Comparator.comparing(Row::unknownSince, java.util.Comparator.nullsLast(
                        java.util.Comparator.naturalOrder()))).limit(10).toList();
        // authorized, not captured: money the merchant has not collected, by how long its hold has left (a hold that
        // lapses is money lost); the hold's time is recorded at confirmation (rules version 3 on)
        List<Map<String, Object>> holds = new ArrayList<>();
        Object[] holdArgs = new Object[args.size() + 3];
        holdArgs[0] = Timestamp.from(now);
        holdArgs[1] = Timestamp.from(now.plus(Duration.ofHours(24)));
        holdArgs[2] = Timestamp.from(now.plus(Duration.ofDays(3)));
        for (int i = 0; i < args.size(); i++) {
            holdArgs[3 + i] = args.get(i);
        }
        jdbc.query("""
                SELECT view -> 'amount' ->> 'currency',
                       CASE WHEN (view ->> 'holdExpiresAt')::timestamptz < ? THEN 'lapsed'
                            WHEN (view ->> 'holdExpiresAt')::timestamptz < ? THEN 'lapses within 24 h'
                            WHEN (view ->> 'holdExpiresAt')::timestamptz < ? THEN 'lapses within 3 days'
                            ELSE 'later' END,
                       count(*), sum((view -> 'amount' ->> 'minor')::bigint)
                FROM checkout_summary WHERE NOT terminal AND view ->> 'holdExpiresAt' IS NOT NULL
                  AND view -> 'captured' IS NULL
                  AND state IN ('confirmed', 'awaiting_capture', 'capture_pending', 'manual_review')""" + tenantSql
                + " GROUP BY 1, 2 ORDER BY 2, 1", rs -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("currency", rs.getString(1));
            m.put("hold", rs.getString(2));
            m.put("count", rs.getLong(3));
            m.put("amountMinor", rs.getLong(4));
            holds.add(m);
        }, holdArgs);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("byStateAndAge", byState);
        out.put("oldestUnknown", oldestUnknown);
        out.put("authorizedNotCaptured", holds);
        return out;
    }

    private void where(CheckoutFilter f, Instant now, StringBuilder sql, List<Object> args) {
        sql.append("TRUE");
        if (f.q() != null) {
            sql.append(" AND (checkout_id = ? OR view ->> 'idempotencyKey' = ? OR view ->> 'providerReference' = ?)");
            args.add(f.q());
            args.add(f.q());
            args.add(f.q());
        }
        if (f.state() != null) {
            sql.append(" AND state = ?");
            args.add(f.state());
        }
        if (f.tenant() != null) {
            sql.append(" AND tenant_id = ?");
            args.add(f.tenant());
        }
        if (f.waiting() || f.stuck() || f.retrying() || f.paymentUnknown()) {
            sql.append(" AND NOT terminal");
        }
        if (f.stuck()) {
            sql.append(" AND ").append(stuckSql(now, args));
        }
        if (f.retrying()) {
            sql.append(" AND ").append(RETRYING_SQL);
        }
        if (f.paymentUnknown()) {
            sql.append(" AND ").append(PAYMENT_UNKNOWN_SQL);
        }
        if (f.from() != null) {
            sql.append(" AND created_at >= ?");
            args.add(Timestamp.from(f.from()));
        }
        if (f.to() != null) {
            sql.append(" AND created_at < ?");
            args.add(Timestamp.from(f.to()));
        }
    }

    /** In its state longer than that state's threshold: a CASE over the configured states. */
    private String stuckSql(Instant now, List<Object> args) {
        StringBuilder sb = new StringBuilder("state_entered_at < CASE state");
        properties.thresholds().forEach((state, after) -> {
            sb.append(" WHEN ? THEN ?::timestamptz");
            args.add(state);
            args.add(Timestamp.from(now.minus(after)));
        });
        sb.append(" END");
        return sb.toString();
    }

    Row row(CheckoutView v, Instant stateSince, Instant now) {
        Instant since = stateSince != null ? stateSince : v.stateSince != null ? v.stateSince : v.updatedAt;
        Duration threshold = properties.thresholds().get(v.state);
        boolean stuck = !v.terminal && threshold != null && since != null && since.isBefore(now.minus(threshold));
        return new Row(v.checkoutId, v.tenantId, v.state, v.terminal, v.amount == null ? 0 : v.amount.minor(),
                v.amount == null ? null : v.amount.currency(), v.createdAt, since,
                v.createdAt == null ? 0 : Duration.between(v.createdAt, now).toSeconds(),
                since == null ? 0 : Duration.between(since, now).toSeconds(),
                v.waiting == null ? null : v.waiting.nextDeadline(), v.waiting == null ? null : v.waiting.reason(),
                lastFailure(v), stuck, v.version, v.cancellationRequested, cancelReason(v), unknownSince(v, since),
                unknownSince(v, since) == null ? null : Duration.between(unknownSince(v, since), now).toSeconds());
    }

    /** Why it was cancelled (the terminal reason), or who asked while the cancellation is pending. */
    static String cancelReason(CheckoutView v) {
        if ("cancelled".equals(v.state)) {
            return v.reason;
        }
        return v.cancellationRequested ? v.cancelReason : null;
    }

    /** Since when the payment outcome is not known: the first unknown outcome, else (a review) since the state. */
    static Instant unknownSince(CheckoutView v, Instant stateSince) {
        boolean unknownNow = "payment_unknown".equals(v.state) || "reconciliation_pending".equals(v.state)
                || ("manual_review".equals(v.state) && v.manualReview != null
                && Set.of("authorize-payment", "reconcile-payment").contains(v.manualReview.blockedStep()));
        if (!unknownNow) {
            return null;
        }
        return v.paymentUnknownSince != null ? v.paymentUnknownSince : stateSince;
    }

    /** The most telling failure: the manual review's reason, else the last bad outcome of any step. */
    static String lastFailure(CheckoutView v) {
        if (v.manualReview != null) {
            return v.manualReview.blockedStep() + ": " + v.manualReview.reason();
        }
        String failure = null;
        for (Map.Entry<String, CheckoutView.Activity> e : v.activities.entrySet()) {
            CheckoutView.Activity a = e.getValue();
            boolean lookup = "reconcile-payment".equals(e.getKey()); // its answers (PENDING) are no failures
            if (a.status != null && !"succeeded".equals(a.status) && !"in_flight".equals(a.status)
                    && !"inconclusive".equals(a.status) && !lookup && a.lastOutcome != null) {
                failure = e.getKey() + ": " + a.lastOutcome;
            } else if ("in_flight".equals(a.status) && a.attempt > 1 && !lookup) {
                failure = e.getKey() + ": attempt " + a.attempt + (a.lastOutcome == null ? "" : " after " + a.lastOutcome);
            }
        }
        return failure;
    }

    static CheckoutView read(String json) {
        try {
            return JSON.readValue(json, CheckoutView.class);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("unreadable checkout view: " + e.getMessage(), e);
        }
    }

    /** Opaque to clients: base64url of "createdAt|checkoutId" of the last row shown. */
    record Cursor(Instant createdAt, String checkoutId) {
        String encode() {
            return Base64.getUrlEncoder().withoutPadding()
                    .encodeToString((createdAt + "|" + checkoutId).getBytes(StandardCharsets.UTF_8));
        }

        static Cursor decode(String cursor) {
            try {
                String s = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
                int bar = s.indexOf('|');
                return new Cursor(Instant.parse(s.substring(0, bar)), s.substring(bar + 1));
            } catch (RuntimeException e) {
                throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid cursor",
                        "cursor must be the nextCursor of a previous page");
            }
        }
    }
}
