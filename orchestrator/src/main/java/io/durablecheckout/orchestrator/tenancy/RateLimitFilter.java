package io.durablecheckout.orchestrator.tenancy;

import io.durablecheckout.orchestrator.http.Problems;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per-tenant request rate, after authentication: a token bucket (Bucket4j) per tenant and node, refilled at the
 * tenant's rate ({@code tenants.requests_per_second}, else {@code checkout.rate-limit.requests-per-second}) with a
 * burst of twice that. Over it: 429 with {@code Retry-After} (seconds until a token is back). Anonymous calls (the
 * signed webhooks) are not counted here. The limit is per node, so N nodes allow up to N times the rate: it protects
 * each node from one noisy tenant; it is not a billing quota.
 */
class RateLimitFilter extends OncePerRequestFilter {

    private final JdbcTemplate jdbc;
    private final long defaultPerSecond;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

    public RateLimitFilter(JdbcTemplate jdbc, long defaultPerSecond) {
        this.jdbc = jdbc;
        this.defaultPerSecond = defaultPerSecond;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Caller caller = (Caller) request.getAttribute(Caller.REQUEST_ATTRIBUTE);
        if (caller == null || defaultPerSecond <= 0) {
            chain.doFilter(request, response);
            return;
        }
        ConsumptionProbe probe = buckets.computeIfAbsent(caller.tenantId(), this::bucket).tryConsumeAndReturnRemaining(1);
        if (!probe.isConsumed()) {
            long seconds = Math.max(1, Duration.ofNanos(probe.getNanosToWaitForRefill()).toSeconds()
                    + (probe.getNanosToWaitForRefill() % 1_000_000_000L == 0 ? 0 : 1));
            response.setHeader("Retry-After", Long.toString(seconds));
            Problems.write(response, HttpStatus.TOO_MANY_REQUESTS, "rate-limited", "Too many requests",
                    "This tenant's request rate is exceeded; retry after " + seconds + " s", request.getRequestURI());
            return;
        }
        chain.doFilter(request, response);
    }

    private Bucket bucket(String tenantId) {
        List<Long> configured = jdbc.queryForList("SELECT requests_per_second FROM tenants WHERE tenant_id = ? "
                + "AND requests_per_second IS NOT NULL", Long.class, tenantId);
        long rate = configured.isEmpty() ? defaultPerSecond : Math.max(1, configured.get(0));
        return Bucket.builder()
                .addLimit(Bandwidth.builder().capacity(rate * 2).refillGreedy(rate, Duration.ofSeconds(1)).build())
                .build();
    }
}
