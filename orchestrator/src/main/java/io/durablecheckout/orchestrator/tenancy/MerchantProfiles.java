package io.durablecheckout.orchestrator.tenancy;

import io.durablecheckout.api.values.ReceiptDetails;
import io.durablecheckout.api.values.TenantId;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A tenant's merchant name and sender display name (admin API), as a new checkout records them in its receipt details.
 * Read once per tenant every {@link #FRESH_FOR} (a submission would otherwise pay a query for them): a change reaches
 * the checkouts created after at most that long, on every node.
 */
@Component
public class MerchantProfiles {

    static final Duration FRESH_FOR = Duration.ofSeconds(10);

    public record Merchant(String merchantName, String senderName) {
    }

    private record Cached(Merchant merchant, Instant readAt) {
    }

    private final JdbcTemplate jdbc;
    private final Clock clock;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    public MerchantProfiles(JdbcTemplate jdbc, Clock clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    /** Tenant's merchant name (else its name) and sender display name (else the merchant name); null if unknown. */
    public Merchant of(String tenantId) {
        Instant now = clock.instant();
        Cached cached = cache.get(tenantId);
        if (cached != null && cached.readAt().plus(FRESH_FOR).isAfter(now)) return cached.merchant();
        List<Merchant> rows = jdbc.query("SELECT coalesce(merchant_name, name), coalesce(sender_display_name, "
                        + "merchant_name, name) FROM tenants WHERE tenant_id = ?",
                (rs, i) -> new Merchant(rs.getString(1), rs.getString(2)), tenantId);
        Merchant merchant = rows.isEmpty() ? new Merchant(null, null) : rows.get(0);
        cache.put(tenantId, new Cached(merchant, now));
        return merchant;
    }

    /** The request's receipt details with the tenant's merchant filled in. */
    public ReceiptDetails withMerchant(TenantId tenant, ReceiptDetails requested) {
        Merchant m = of(tenant.value());
        ReceiptDetails r = requested == null ? new ReceiptDetails(null, null, null, List.of(), null, null, null)
                : requested;
        return new ReceiptDetails(r.orderReference(), m.merchantName(), m.senderName(), r.lines(), r.shippingMinor(),
                r.taxMinor(), r.discountMinor());
    }

    /** Sets them ({@code null}: back to the tenant's name); true when the tenant exists. */
    public boolean update(String tenantId, String merchantName, String senderName) {
        boolean updated = jdbc.update("UPDATE tenants SET merchant_name = ?, sender_display_name = ? WHERE tenant_id = ?",
                merchantName, senderName, tenantId) == 1;
        cache.remove(tenantId);
        return updated;
    }
}
