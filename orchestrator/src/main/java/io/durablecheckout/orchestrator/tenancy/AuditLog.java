package io.durablecheckout.orchestrator.tenancy;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.Map;

/**
 * Who did what, to what, when and why: every admin action (tenants, keys) and every operator repair (resolve,
 * retry, cancel, rebuild, erase). Rows are only ever inserted. Written in the caller's transaction where there is
 * one, so an action that fails leaves no audit row claiming it happened.
 */
@Component
public class AuditLog {

    private final JdbcTemplate jdbc;

    public AuditLog(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public void record(Caller actor, String action, String target, String reason, String details) {
        record(actor.actor(), action, target, reason, details);
    }

    /** For changes nobody's key made: {@code configuration} at a start ({@link ApiKeys#CONFIGURATION}). */
    public void record(String actor, String action, String target, String reason, String details) {
        jdbc.update("INSERT INTO audit_log (actor, action, target, reason, details) VALUES (?, ?, ?, ?, ?)",
                actor, action, target, reason, details);
    }

    public List<Map<String, Object>> about(String target) {
        return jdbc.queryForList("SELECT at, actor, action, target, reason, details FROM audit_log WHERE target = ? "
                + "ORDER BY id", target);
    }
}
