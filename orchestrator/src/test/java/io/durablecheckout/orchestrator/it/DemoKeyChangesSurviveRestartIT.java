package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.NodeProcess;
import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;
import io.durablecheckout.orchestrator.tenancy.ApiKeys;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 53, item 3: a revoked demo key and a demo key rotated without overlap answered 200 again after a restart
 * (the demo's seeding re-activated them) while the rotation's replacement was revoked "by configuration", and none
 * of it was in audit_log. Now, across a real restart of the node on the same database: the revoked and the rotated
 * key stay 401, the replacement stays 200, and every key change, the seeding's included, is in audit_log.
 */
class DemoKeyChangesSurviveRestartIT {

    static EmbeddedPostgresServer postgres;
    static JdbcTemplate db;
    static NodeProcess node;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "demo-restart-pg-");
        postgres = EmbeddedPostgresServer.start(dir, 0);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(postgres.jdbcUrl());
        ds.setUser("postgres");
        db = new JdbcTemplate(ds);
    }

    @AfterAll
    static void stop() throws Exception {
        if (node != null) node.close();
        if (postgres != null) postgres.close();
    }

    @Test
    void aRevokedOrRotatedDemoKeyStaysSoAfterARestartAndEveryChangeIsAudited() throws Exception {
        node = NodeProcess.start("demo-restart-1", postgres.jdbcUrl(), List.of());
        String tenantKey = activeKeyOf("demo:tenant");
        String operatorKey = activeKeyOf("demo:operator");
        assertThat(audited("configuration", "key.create", tenantKey)).as("the demo's seeding").isEqualTo(1);
        assertThat(audited("configuration", "key.create", operatorKey)).isEqualTo(1);
        ApiKeys keys = new ApiKeys(db);
        keys.createTenant("admin", "Administrators");
        String admin = keys.issue("admin", EnumSet.of(Caller.Role.ADMIN), "restart test", "test").key();

        assertThat(status("POST", "/api/v1/admin/keys/" + tenantKey + "/revoke", admin,
                "{\"reason\":\"leaked\"}")).isEqualTo(200);
        HttpResponse<String> rotated = send("POST", "/api/v1/admin/keys/" + operatorKey + "/rotate", admin,
                "{\"overlap\":\"PT0S\",\"reason\":\"leaked\"}");
        assertThat(rotated.statusCode()).as(rotated.body()).isEqualTo(201);
        String replacement = rotated.body().replaceFirst(".*\"key\":\"([^\"]+)\".*", "$1");
        assertThat(replacement).startsWith("ck_");
        assertThat(status("GET", "/api/v1/checkouts?limit=1", HttpApi.DEMO_KEY, null)).isEqualTo(401);
        assertThat(status("GET", "/api/v1/operator/dead-letters", HttpApi.OPERATOR_KEY, null)).isEqualTo(401);
        assertThat(status("GET", "/api/v1/operator/dead-letters", replacement, null)).isEqualTo(200);

        node.close();
        node = NodeProcess.start("demo-restart-2", postgres.jdbcUrl(), List.of());

        assertThat(status("GET", "/api/v1/checkouts?limit=1", HttpApi.DEMO_KEY, null)).as("revoked demo key")
                .isEqualTo(401);
        assertThat(status("GET", "/api/v1/operator/dead-letters", HttpApi.OPERATOR_KEY, null))
                .as("rotated demo key").isEqualTo(401);
        assertThat(status("GET", "/api/v1/operator/dead-letters", replacement, null)).as("its replacement")
                .isEqualTo(200);
        assertThat(status("GET", "/api/v1/checkouts?limit=1", admin, null)).as("the admin key reads nothing")
                .isEqualTo(403);

        assertThat(db.queryForObject("SELECT count(*) FROM audit_log WHERE action = 'key.revoke' AND target = ? "
                + "AND actor LIKE 'admin/%'", Long.class, "key:" + tenantKey)).isEqualTo(1);
        assertThat(db.queryForObject("SELECT count(*) FROM audit_log WHERE action = 'key.rotate' AND target = ? "
                + "AND actor LIKE 'admin/%'", Long.class, "key:" + operatorKey)).isEqualTo(1);
        assertThat(db.queryForObject("SELECT count(*) FROM audit_log WHERE actor = 'configuration' AND action IN "
                + "('key.reactivate', 'key.revoke')", Long.class)).as("the restart changed no key").isZero();
        assertThat(db.queryForObject("SELECT revoked_by FROM api_keys WHERE key_id = ?", String.class, tenantKey))
                .startsWith("admin/");
    }

    private static String activeKeyOf(String label) {
        return db.queryForObject("SELECT key_id FROM api_keys WHERE label = ? AND revoked_at IS NULL", String.class,
                label);
    }

    private static long audited(String actor, String action, String keyId) {
        return db.queryForObject("SELECT count(*) FROM audit_log WHERE actor = ? AND action = ? AND target = ?",
                Long.class, actor, action, "key:" + keyId);
    }

    private int status(String method, String path, String key, String json) throws Exception {
        return send(method, path, key, json).statusCode();
    }

    private HttpResponse<String> send(String method, String path, String key, String json) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + node.port() + path))
                .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + key)
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) b.header("Content-Type", "application/json");
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
