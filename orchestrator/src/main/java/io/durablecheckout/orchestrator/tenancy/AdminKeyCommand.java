package io.durablecheckout.orchestrator.tenancy;

import io.durablecheckout.orchestrator.cli.CommandLineOptions;
import ch.qos.logback.classic.Level;
import org.flywaydb.core.Flyway;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code create-admin-key}: the first admin key of a database, from the command line of the same jar, so a
 * production start needs no SQL (docs/security.md). No Spring context: it migrates the schema as a start would
 * (Flyway, the same migrations), then, under a lock, creates the tenant {@code admin} and one key with the role
 * {@code admin}, and prints the key once, alone on stdout (the database keeps only its SHA-256). It refuses while any
 * active admin key exists: further keys come from the admin API, which records who asked and why.
 * <pre>
 *   create-admin-key [--label TEXT] [--jdbc-url URL [--jdbc-user USER] [--jdbc-password PASSWORD]]
 * </pre>
 * The database is the configured one: {@code SPRING_DATASOURCE_URL}, {@code _USERNAME} and {@code _PASSWORD}, as
 * the production start reads them, unless given as options. Exit code 0: created; 1: refused (an admin key exists);
 * 2: bad usage or no database.
 */
public final class AdminKeyCommand {

    public static final String NAME = "create-admin-key";

    static final String USAGE = """
            usage: ./checkout create-admin-key [--label TEXT]
                                               [--jdbc-url URL [--jdbc-user USER] [--jdbc-password PASSWORD]]
              the database: SPRING_DATASOURCE_URL, SPRING_DATASOURCE_USERNAME, SPRING_DATASOURCE_PASSWORD (as the
              production start reads them) unless given as options
            exit code: 0 created (the key is printed once, alone on stdout), 1 refused (an active admin key exists),
                       2 usage or database error
            """;

    static final String TENANT = "admin";
    static final String DEFAULT_LABEL = "first admin key";
    /** Serializes two runs of this command on one database (the check and the insert are one decision). */
    private static final long LOCK = 0x6164_6d69_6e6b_6579L; // "adminkey"

    private AdminKeyCommand() {
    }

    /** Runs the command line ({@code args[0]} is {@value #NAME}) and returns its exit code. */
    public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        quietLogging();
        Map<String, String> options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            err.print(USAGE);
            return 2;
        }
        String url = options.getOrDefault("jdbc-url", env.get("SPRING_DATASOURCE_URL"));
        if (url == null || url.isBlank()) {
            err.println("error: no database configured: set SPRING_DATASOURCE_URL (with SPRING_DATASOURCE_USERNAME and "
                    + "SPRING_DATASOURCE_PASSWORD) as for the production start, or pass --jdbc-url (the embedded demo "
                    + "has its admin key already: demo-admin-key)");
            return 2;
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        try {
            ds.setUrl(url);
        } catch (IllegalArgumentException e) {
            err.println("error: not a PostgreSQL JDBC URL: " + url);
            return 2;
        }
        String user = options.getOrDefault("jdbc-user", env.get("SPRING_DATASOURCE_USERNAME"));
        String password = options.getOrDefault("jdbc-password", env.get("SPRING_DATASOURCE_PASSWORD"));
        if (user != null && !user.isBlank()) {
            ds.setUser(user);
        }
        if (password != null) {
            ds.setPassword(password);
        }
        try {
            // the schema a start would create (a no-op when a node has already started on this database)
            Flyway.configure().dataSource(ds)
                    .locations("classpath:db/migration/core", "classpath:db/migration/activities")
                    .load().migrate();
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try {
                    int code = create(new JdbcTemplate(new SingleConnectionDataSource(c, true)),
                            options.getOrDefault("label", DEFAULT_LABEL), out, err);
                    c.commit();
                    return code;
                } catch (RuntimeException e) {
                    c.rollback();
                    throw e;
                }
            }
        } catch (SQLException | RuntimeException e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
    }

    private static int create(JdbcTemplate jdbc, String label, PrintStream out, PrintStream err) {
        jdbc.queryForList("SELECT pg_advisory_xact_lock(?)", LOCK);
        List<String> admins = jdbc.query("SELECT k.key_id, k.roles, k.label FROM api_keys k JOIN tenants t "
                        + "USING (tenant_id) WHERE t.disabled_at IS NULL AND k.revoked_at IS NULL "
                        + "AND (k.expires_at IS NULL OR k.expires_at > now()) ORDER BY k.created_at",
                (rs, i) -> Caller.Role.parse(rs.getString(2)).contains(Caller.Role.ADMIN)
                        ? rs.getString(1) + " (" + rs.getString(3) + ")" : null)
                .stream().filter(java.util.Objects::nonNull).toList();
        if (!admins.isEmpty()) {
            err.println("refused: this database has an active admin key already: " + String.join(", ", admins)
                    + ". Issue more keys with the admin API (docs/security.md); to start over, revoke them first.");
            return 1;
        }
        ApiKeys keys = new ApiKeys(jdbc);
        keys.createTenant(TENANT, "Administrators");
        ApiKeys.KeyInfo key = keys.issue(TENANT, Set.of(Caller.Role.ADMIN), label, NAME);
        jdbc.update("INSERT INTO audit_log (actor, action, target, reason, details) VALUES (?, ?, ?, ?, ?)",
                NAME, "key.issue", "key:" + key.keyId(), "first admin key of this database",
                "tenant " + TENANT + ", roles admin, label " + label);
        err.println("created admin key " + key.keyId() + " (tenant " + TENANT + ", label \"" + label
                + "\"). It is shown this once, on the next line; the database keeps only its hash:");
        out.println(key.key());
        return 0;
    }

    static Map<String, String> parse(String[] args) {
        if (args.length == 0 || !NAME.equals(args[0])) {
            throw new IllegalArgumentException("expected '" + NAME + "'");
        }
        Map<String, String> options = CommandLineOptions.parse(args, List.of(),
                List.of("label", "jdbc-url", "jdbc-user", "jdbc-password"));
        if (options.containsKey("label") && options.get("label").isBlank()) {
            throw new IllegalArgumentException("--label must not be blank");
        }
        // as the admin API's label: it reaches audit_log, the key list and log lines
        if (options.containsKey("label") && (options.get("label").length() > 100
                || !io.durablecheckout.orchestrator.http.TextLimits.printable(options.get("label")))) {
            throw new IllegalArgumentException("--label: at most 100 printable characters (no control characters, "
                    + "no line breaks)");
        }
        return options;
    }

    private static void quietLogging() {
        if (LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME) instanceof ch.qos.logback.classic.Logger root) {
            root.setLevel(Level.WARN);
        }
    }
}
