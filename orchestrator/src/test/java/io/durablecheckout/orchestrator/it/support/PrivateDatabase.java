package io.durablecheckout.orchestrator.it.support;

import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;
import io.durablecheckout.orchestrator.tenancy.AdminKeyCommand;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * An embedded PostgreSQL of one test's own, for tests that start their own nodes on it (in this JVM or as
 * processes), with a {@link JdbcTemplate} to read what they wrote.
 */
public final class PrivateDatabase implements AutoCloseable {

    private final EmbeddedPostgresServer postgres;
    private final JdbcTemplate jdbc;

    private PrivateDatabase(EmbeddedPostgresServer postgres) {
        this.postgres = postgres;
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(postgres.jdbcUrl());
        ds.setUser("postgres");
        this.jdbc = new JdbcTemplate(ds);
    }

    /** A fresh server with its data under {@code target/<prefix>…}. */
    public static PrivateDatabase start(String prefix) throws Exception {
        return new PrivateDatabase(EmbeddedPostgresServer.start(
                Files.createTempDirectory(Path.of("target").toAbsolutePath(), prefix), 0));
    }

    public String jdbcUrl() {
        return postgres.jdbcUrl();
    }

    public JdbcTemplate jdbc() {
        return jdbc;
    }

    /** The first admin key of this database, made as an operator makes it (decision 69). */
    public String firstAdminKey() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        int exit = AdminKeyCommand.run(new String[] {AdminKeyCommand.NAME, "--jdbc-url", jdbcUrl(), "--jdbc-user",
                "postgres"}, Map.of(), new PrintStream(printed, true), System.err);
        if (exit != 0) {
            throw new IllegalStateException("create-admin-key exited with " + exit);
        }
        return printed.toString().trim();
    }

    /**
     * A second tenant made through the admin API, with a tenant key and 1,000 of {@code sku}.
     *
     * @return the tenant's id and key
     */
    public static String[] secondTenant(HttpApi api, String adminKey, String sku) {
        String shop = "shop-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        require(api.send("POST", "/api/v1/admin/tenants", adminKey, Map.of(),
                "{\"tenantId\":\"" + shop + "\",\"name\":\"Second shop\",\"reason\":\"test\"}"), 201);
        HttpApi.Response issued = require(api.send("POST", "/api/v1/admin/tenants/" + shop + "/keys", adminKey,
                Map.of(), "{\"roles\":[\"tenant\"],\"reason\":\"test\"}"), 201);
        require(api.send("POST", "/api/v1/admin/tenants/" + shop + "/stock", adminKey, Map.of(),
                "{\"sku\":\"" + sku + "\",\"quantity\":1000,\"reason\":\"test\"}"), 201);
        return new String[] {shop, issued.json().get("key").asText()};
    }

    private static HttpApi.Response require(HttpApi.Response r, int status) {
        if (r.status() != status) {
            throw new IllegalStateException("HTTP " + r.status() + ": " + r.body());
        }
        return r;
    }

    @Override
    public void close() throws Exception {
        postgres.close();
    }
}
