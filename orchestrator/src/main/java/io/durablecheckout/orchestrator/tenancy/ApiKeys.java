package io.durablecheckout.orchestrator.tenancy;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * API keys. A key is 192 random bits ({@code ck_} + base64url), shown once when issued and stored only as its
 * SHA-256 (a hash of a high-entropy secret needs no slow KDF). Every request looks its key up in the database, so a
 * revocation or expiry is effective at once on every node. Rotation issues a new key and lets the old one expire
 * after an overlap window.
 */
@Component
public class ApiKeys {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String ACTIVE = "k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())";

    private final JdbcTemplate jdbc;

    public ApiKeys(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** A key as the admin API shows it; {@code key} is present only in the answer that issued it. */
    public record KeyInfo(String keyId, String tenantId, String roles, String label, String createdAt,
                          String expiresAt, String revokedAt, String key) {
    }

    public Optional<Caller> resolve(String apiKey) {
        if (apiKey == null || apiKey.isEmpty() || apiKey.length() > 200) return Optional.empty();
        return jdbc.query("SELECT k.tenant_id, k.roles, k.key_id FROM api_keys k JOIN tenants t USING (tenant_id) "
                        + "WHERE k.key_sha256 = ? AND t.disabled_at IS NULL AND " + ACTIVE,
                (rs, i) -> new Caller(rs.getString(1), Caller.Role.parse(rs.getString(2)), rs.getString(3)),
                sha256(apiKey)).stream().findFirst();
    }

    /** Creates the tenant unless it exists; true when created. */
    public boolean createTenant(String tenantId, String name) {
        return jdbc.update("INSERT INTO tenants (tenant_id, name) VALUES (?, ?) ON CONFLICT (tenant_id) DO NOTHING",
                tenantId, name) == 1;
    }

    public boolean tenantExists(String tenantId) {
        return Boolean.TRUE.equals(jdbc.queryForObject("SELECT EXISTS (SELECT 1 FROM tenants WHERE tenant_id = ?)",
                Boolean.class, tenantId));
    }

    public KeyInfo issue(String tenantId, Set<Caller.Role> roles, String label, String actor) {
        String key = "ck_" + Base64.getUrlEncoder().withoutPadding().encodeToString(random(24));
        String keyId = "key_" + HexFormat.of().formatHex(random(8));
        jdbc.update("INSERT INTO api_keys (key_id, tenant_id, key_sha256, roles, label, created_by) VALUES (?, ?, ?, ?, ?, ?)",
                keyId, tenantId, sha256(key), Caller.Role.format(roles), label, actor);
        return find(keyId).map(k -> new KeyInfo(k.keyId(), k.tenantId(), k.roles(), k.label(), k.createdAt(),
                k.expiresAt(), k.revokedAt(), key)).orElseThrow();
    }

    /** A new key with the same tenant, roles and label; the old one keeps working for {@code overlap}. */
    public Optional<KeyInfo> rotate(String keyId, Duration overlap, String actor) {
        Optional<KeyInfo> old = find(keyId).filter(k -> k.revokedAt() == null);
        if (old.isEmpty()) return Optional.empty();
        KeyInfo fresh = issue(old.get().tenantId(), Caller.Role.parse(old.get().roles()), old.get().label(), actor);
        jdbc.update("UPDATE api_keys SET expires_at = LEAST(coalesce(expires_at, 'infinity'), now() + make_interval(secs => ?)) "
                + "WHERE key_id = ?", (double) overlap.toSeconds(), keyId);
        return Optional.of(fresh);
    }

    /** True when the key was active and is now revoked. */
    public boolean revoke(String keyId, String actor) {
        return jdbc.update("UPDATE api_keys SET revoked_at = now(), revoked_by = ? WHERE key_id = ? AND revoked_at IS NULL",
                actor, keyId) == 1;
    }

    public Optional<KeyInfo> find(String keyId) {
        return jdbc.query("SELECT * FROM api_keys WHERE key_id = ?", (rs, i) -> info(rs), keyId).stream().findFirst();
    }

    public List<KeyInfo> keysOf(String tenantId) {
        return jdbc.query("SELECT * FROM api_keys WHERE tenant_id = ? ORDER BY created_at, key_id", (rs, i) -> info(rs),
                tenantId);
    }

    /**
     * Makes {@code apiKey} the one active key labelled {@code label} (a demo key): any other active key with that
     * label is revoked, so changing a configured demo key revokes the old one. A null key revokes them all.
     */
    public void ensureLabelledKey(String tenantId, String tenantName, String label, String apiKey, Set<Caller.Role> roles) {
        if (apiKey == null) {
            jdbc.update("UPDATE api_keys SET revoked_at = now(), revoked_by = 'configuration' "
                    + "WHERE label = ? AND revoked_at IS NULL", label);
            return;
        }
        createTenant(tenantId, tenantName);
        String hash = sha256(apiKey);
        jdbc.update("UPDATE api_keys SET revoked_at = now(), revoked_by = 'configuration' "
                + "WHERE label = ? AND revoked_at IS NULL AND key_sha256 <> ?", label, hash);
        jdbc.update("INSERT INTO api_keys (key_id, tenant_id, key_sha256, roles, label, created_by) "
                        + "VALUES (?, ?, ?, ?, ?, 'configuration') ON CONFLICT (key_sha256) DO UPDATE "
                        + "SET revoked_at = NULL, revoked_by = NULL, expires_at = NULL, roles = EXCLUDED.roles, "
                        + "tenant_id = EXCLUDED.tenant_id, label = EXCLUDED.label",
                "key_" + hash.substring(0, 16), tenantId, hash, Caller.Role.format(roles), label);
    }

    private static KeyInfo info(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new KeyInfo(rs.getString("key_id"), rs.getString("tenant_id"), rs.getString("roles"),
                rs.getString("label"), str(rs.getTimestamp("created_at")), str(rs.getTimestamp("expires_at")),
                str(rs.getTimestamp("revoked_at")), null);
    }

    private static String str(java.sql.Timestamp t) {
        return t == null ? null : t.toInstant().toString();
    }

    private static byte[] random(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return b;
    }

    static String sha256(String value) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
