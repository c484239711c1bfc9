package io.durablecheckout.orchestrator.tenancy;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;

/** API keys are stored as SHA-256 only; a key is looked up by its hash. */
@Component
public class ApiKeys {

    private final JdbcTemplate jdbc;

    public ApiKeys(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public Optional<Caller> resolve(String apiKey) {
        return jdbc.query("SELECT tenant_id, role FROM tenants WHERE api_key_sha256 = ?",
                (rs, i) -> new Caller(rs.getString(1), Caller.Role.valueOf(rs.getString(2).toUpperCase(Locale.ROOT))),
                sha256(apiKey)).stream().findFirst();
    }

    /** Idempotent: registers the tenant with this key unless the tenant exists. */
    public void register(String tenantId, String name, String apiKey, Caller.Role role) {
        jdbc.update("INSERT INTO tenants (tenant_id, name, api_key_sha256, role) VALUES (?, ?, ?, ?) "
                + "ON CONFLICT (tenant_id) DO NOTHING", tenantId, name, sha256(apiKey), role.name().toLowerCase(Locale.ROOT));
    }

    static String sha256(String value) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
