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

    /**
     * A key as the admin API shows it; {@code key} is present only in the answer that issued it; {@code roles} an
     * array of role codes, as a key is created with.
     */
    public record KeyInfo(String keyId, String tenantId, List<String> roles, String label, String createdAt,
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

    /**
     * A new key with the same tenant, roles and label; the old one keeps working for {@code overlap}. Only a live key
     * (neither revoked nor expired) is rotated, else empty: an expired key must not turn into a live one. Call in a
     * transaction: the old key's row is locked until it commits, so two rotations of one key do not both succeed.
     */
    public Optional<KeyInfo> rotate(String keyId, Duration overlap, String actor) {
        Optional<KeyInfo> old = jdbc.query("SELECT * FROM api_keys k WHERE k.key_id = ? AND " + ACTIVE
                + " FOR UPDATE", (rs, i) -> info(rs), keyId).stream().findFirst();
        if (old.isEmpty()) return Optional.empty();
        Set<Caller.Role> roles = java.util.EnumSet.noneOf(Caller.Role.class);
        old.get().roles().forEach(code -> roles.add(Caller.Role.ofCode(code)));
        KeyInfo fresh = issue(old.get().tenantId(), roles, old.get().label(), actor);
        jdbc.update("UPDATE api_keys SET expires_at = LEAST(coalesce(expires_at, 'infinity'), now() + make_interval(secs => ?)) "
                + "WHERE key_id = ?", (double) overlap.toSeconds(), keyId);
        return Optional.of(fresh);
    }

    /** The roles of an account's keys that are not revoked (expired ones included). */
    public Set<Caller.Role> rolesOfUnrevokedKeys(String tenantId) {
        Set<Caller.Role> roles = java.util.EnumSet.noneOf(Caller.Role.class);
        jdbc.queryForList("SELECT roles FROM api_keys WHERE tenant_id = ? AND revoked_at IS NULL", String.class,
                tenantId).forEach(codes -> roles.addAll(Caller.Role.parse(codes)));
        return roles;
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

    /** Who changes keys at a start, in audit_log and in {@code created_by} / {@code revoked_by}. */
    public static final String CONFIGURATION = "configuration";

    /**
     * Makes {@code apiKey} the configured key labelled {@code label} (a demo key) and records every change in
     * {@code audit_log} (actor {@code configuration}, the given reason). The key is created if it is new, and any other
     * active key of the label that configuration made (not a rotation's replacement, which an admin issued) is
     * revoked, so changing a configured demo key revokes the old one. A key that an admin revoked or rotated
     * (revoked by someone else than configuration, or given an expiry) is left as it is, and nothing else of its label
     * is touched: a restart never undoes an admin's revocation or rotation, nor revokes the rotation's replacement. A
     * key that configuration itself revoked (the demo was off) is active again. A null key revokes every active key of
     * the label.
     *
     * @return the actions recorded, e.g. {@code key.create key:key_…}, for the start-up log
     */
    public List<String> ensureLabelledKey(String tenantId, String tenantName, String label, String apiKey,
                                          Set<Caller.Role> roles, AuditLog audit, String reason) {
        List<String> done = new java.util.ArrayList<>();
        if (apiKey == null) {
            revokeByConfiguration("label = ?", List.of(label), audit, reason, done);
            return done;
        }
        if (createTenant(tenantId, tenantName)) {
            audit.record(CONFIGURATION, "tenant.create", "tenant:" + tenantId, reason, tenantName);
            done.add("tenant.create tenant:" + tenantId);
        }
        String hash = sha256(apiKey);
        String keyId = "key_" + hash.substring(0, 16);
        List<java.util.Map<String, Object>> rows = jdbc.queryForList(
                "SELECT key_id, revoked_by, expires_at FROM api_keys WHERE key_sha256 = ?", hash);
        if (!rows.isEmpty()) {
            java.util.Map<String, Object> row = rows.get(0);
            Object revokedBy = row.get("revoked_by");
            if ((revokedBy != null && !CONFIGURATION.equals(revokedBy)) || row.get("expires_at") != null) {
                done.add("kept " + row.get("key_id") + " (" + (revokedBy != null ? "revoked by " + revokedBy
                        : "rotated: expires " + row.get("expires_at")) + ")");
                return done; // an admin's decision: neither undone nor overruled for the rest of the label
            }
            if (jdbc.update("UPDATE api_keys SET revoked_at = NULL, revoked_by = NULL WHERE key_sha256 = ? "
                    + "AND revoked_by = ?", hash, CONFIGURATION) == 1) {
                audit.record(CONFIGURATION, "key.reactivate", "key:" + row.get("key_id"), reason,
                        "label=" + label);
                done.add("key.reactivate key:" + row.get("key_id"));
            }
        } else if (jdbc.update("INSERT INTO api_keys (key_id, tenant_id, key_sha256, roles, label, created_by) "
                        + "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                keyId, tenantId, hash, Caller.Role.format(roles), label, CONFIGURATION) == 1) {
            audit.record(CONFIGURATION, "key.create", "key:" + keyId, reason,
                    "tenant=" + tenantId + " roles=" + Caller.Role.format(roles) + " label=" + label);
            done.add("key.create key:" + keyId);
        }
        revokeByConfiguration("label = ? AND key_sha256 <> ? AND created_by IN ('configuration', 'migration')",
                List.of(label, hash), audit, "replaced by the configured key: " + reason, done);
        return done;
    }

    private void revokeByConfiguration(String where, List<Object> args, AuditLog audit, String reason,
                                       List<String> done) {
        List<Object> all = new java.util.ArrayList<>();
        all.add(CONFIGURATION);
        all.addAll(args);
        for (String revoked : jdbc.queryForList("UPDATE api_keys SET revoked_at = now(), revoked_by = ? WHERE "
                + where + " AND revoked_at IS NULL RETURNING key_id", String.class, all.toArray())) {
            audit.record(CONFIGURATION, "key.revoke", "key:" + revoked, reason, null);
            done.add("key.revoke key:" + revoked);
        }
    }

    private static KeyInfo info(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new KeyInfo(rs.getString("key_id"), rs.getString("tenant_id"),
                Caller.Role.parse(rs.getString("roles")).stream().sorted().map(Caller.Role::code).toList(),
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
