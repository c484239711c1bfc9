package io.durablecheckout.orchestrator.retention;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.Optional;

/**
 * A tenant's own retention ({@code tenants.event_retention_days}, set through the admin API) and the one
 * {@link EventArchiver} applies to it: its own days or {@code default-retention}, never shorter than the chargeback
 * window.
 */
@Component
public class TenantRetention {

    /** A hundred years: the longest a tenant may set. */
    public static final int MAX_DAYS = 36_500;

    private final JdbcTemplate jdbc;
    private final RetentionProperties settings;

    public TenantRetention(JdbcTemplate jdbc, RetentionProperties settings) {
        this.jdbc = jdbc;
        this.settings = settings;
    }

    /**
     * @param days                 the tenant's own, or null (the default applies)
     * @param effectiveDays        what the archiver applies: {@code days} or the default, at least the chargeback
     *                             window
     * @param chargebackWindowDays nothing moves younger than this, whatever the tenant sets
     */
    @io.swagger.v3.oas.annotations.media.Schema(name = "TenantRetention")
    public record Setting(String tenantId, Integer days, long effectiveDays, long chargebackWindowDays) {
    }

    /** Empty for an unknown tenant. */
    public Optional<Setting> of(String tenantId) {
        List<Integer> rows = jdbc.queryForList("SELECT event_retention_days FROM tenants WHERE tenant_id = ?",
                Integer.class, tenantId);
        if (rows.isEmpty()) return Optional.empty();
        Integer days = rows.get(0);
        return Optional.of(new Setting(tenantId, days, settings.retentionOf(days).toDays(),
                settings.chargebackWindow().toDays()));
    }

    /** Sets (null: clears) the tenant's own retention; false for an unknown tenant. */
    public boolean set(String tenantId, Integer days) {
        return jdbc.update("UPDATE tenants SET event_retention_days = ? WHERE tenant_id = ?", days, tenantId) == 1;
    }
}
