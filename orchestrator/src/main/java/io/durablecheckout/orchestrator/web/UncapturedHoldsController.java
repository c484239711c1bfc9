package io.durablecheckout.orchestrator.web;

import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Checkouts completed before capture was a step (rules version below 3, decision 131) whose authorization is still
 * held: neither captured nor released by an operator since. Oldest first, paged, for operator keys (read); each is
 * captured or released through the operator API ({@code POST /api/v1/operator/checkouts/{id}/capture-hold} or
 * {@code /release-hold}). Read from the read model: such a view has no capture mode, no capture and no release.
 */
@RestController
@RequestMapping("/api/v1/operator/uncaptured-holds")
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
public class UncapturedHoldsController {

    private static final int MAX_LIMIT = 500;

    private final JdbcTemplate jdbc;
    private final Clock clock;

    public UncapturedHoldsController(JdbcTemplate jdbc, Clock clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    /**
     * @param holdExpiresAt when the provider releases the hold by itself: not recorded for these checkouts (their
     *                      confirmation named no hold), so {@code null}; Stripe releases card holds after about 7 days
     */
    public record UncapturedHold(String checkoutId, String tenantId, HoldAmount amount, Instant createdAt,
                                 Instant completedAt, long ageSeconds, Instant holdExpiresAt, long version) {
    }

    public record HoldAmount(long minor, String currency) {
    }

    public record UncapturedHoldsPage(List<UncapturedHold> holds, String nextCursor) {
    }

    @GetMapping
    public UncapturedHoldsPage list(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                     @RequestParam(required = false) String tenant,
                     @RequestParam(required = false) String cursor,
                     @RequestParam(defaultValue = "50") int limit) {
        if (!caller.isOperator()) {
            throw new ApiProblemException(HttpStatus.FORBIDDEN, "forbidden", "Operators only",
                    "Listing uncaptured holds needs an operator API key");
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw invalid("limit must be between 1 and " + MAX_LIMIT);
        }
        StringBuilder sql = new StringBuilder("SELECT checkout_id, tenant_id, version, created_at, "
                + "(view -> 'amount' ->> 'minor')::bigint AS minor, view -> 'amount' ->> 'currency' AS currency, "
                + "view ->> 'completedAt' AS completed_at FROM checkout_summary WHERE state = 'completed' "
                + "AND view ->> 'captureMode' IS NULL AND view ->> 'captured' IS NULL "
                + "AND view ->> 'holdReleasedAt' IS NULL");
        List<Object> args = new ArrayList<>();
        if (tenant != null && !tenant.isBlank()) {
            sql.append(" AND tenant_id = ?");
            args.add(tenant);
        }
        if (cursor != null && !cursor.isBlank()) {
            String[] after = decode(cursor);
            sql.append(" AND (created_at, checkout_id) > (?, ?)");
            args.add(Timestamp.from(Instant.parse(after[0])));
            args.add(after[1]);
        }
        sql.append(" ORDER BY created_at, checkout_id LIMIT ?");
        args.add(limit + 1);
        Instant now = clock.instant();
        List<UncapturedHold> holds = jdbc.query(sql.toString(), (rs, n) -> {
            Instant created = rs.getTimestamp("created_at").toInstant();
            String completed = rs.getString("completed_at");
            return new UncapturedHold(rs.getString("checkout_id"), rs.getString("tenant_id"),
                    new HoldAmount(rs.getLong("minor"), rs.getString("currency")), created,
                    completed == null ? null : Instant.parse(completed),
                    Math.max(0, Duration.between(created, now).toSeconds()), null, rs.getLong("version"));
        }, args.toArray());
        String next = null;
        if (holds.size() > limit) {
            holds = holds.subList(0, limit);
            UncapturedHold last = holds.get(limit - 1);
            next = Base64.getUrlEncoder().withoutPadding().encodeToString((last.createdAt() + "|" + last.checkoutId())
                    .getBytes(StandardCharsets.UTF_8));
        }
        return new UncapturedHoldsPage(List.copyOf(holds), next);
    }

    private static String[] decode(String cursor) {
        try {
            String s = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            int bar = s.indexOf('|');
            Instant.parse(s.substring(0, bar));
            return new String[] {s.substring(0, bar), s.substring(bar + 1)};
        } catch (RuntimeException e) {
            throw invalid("cursor: not one this list returned");
        }
    }

    private static ApiProblemException invalid(String error) {
        return new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request", error);
    }
}
