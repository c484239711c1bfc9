package io.durablecheckout.orchestrator.config;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * PostgreSQL started in-process (zonky) on a persistent data directory, so a restart resumes in-flight checkouts.
 * Durable commits are forced on: zonky's default is {@code synchronous_commit=off}, which would lose acknowledged
 * commits on a machine crash.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresServer.class);

    /** The superuser's password, generated on first start; beside the data directory, readable by its owner only. */
    static final String CREDENTIALS_FILE_SUFFIX = ".password";

    /** The embedded server's connection limit (several nodes and the tests' pools share one server). */
    static final String MAX_CONNECTIONS = "300";

    /** Every connection, local socket or TCP, proves the password: no {@code trust} line survives a start. */
    static final String PG_HBA = """
            # Written by the checkout orchestrator at every start of its embedded PostgreSQL: password (SCRAM) only.
            local   all   all                 scram-sha-256
            host    all   all   127.0.0.1/32  scram-sha-256
            host    all   all   ::1/128       scram-sha-256
            """;

    private final EmbeddedPostgres postgres;
    private final String password;

    private EmbeddedPostgresServer(EmbeddedPostgres postgres, String password) {
        this.postgres = postgres;
        this.password = password;
    }

    /** Stopped by a JVM shutdown hook of its own, whatever else is still using it (tests, the command line). */
    public static EmbeddedPostgresServer start(Path dataDirectory, int port) {
        return start(dataDirectory, port, true);
    }

    /**
     * @param stopOnJvmExit false for the application's server: the application stops it itself, last, after the
     *                      processors, the deadline scheduler and the pool (a shutdown hook of its own would run at
     *                      the same time as the application's, and pull the database from under them)
     */
    public static EmbeddedPostgresServer start(Path dataDirectory, int port, boolean stopOnJvmExit) {
        try {
            Files.createDirectories(dataDirectory);
            stopOrphanedPostmaster(dataDirectory);
            Path passwordFile = passwordFile(dataDirectory);
            String password = passwordOf(passwordFile);
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    // a new cluster is made with the password and SCRAM (initdb: the last -A/--auth given wins)
                    .setLocaleConfig("auth", "scram-sha-256")
                    .setLocaleConfig("pwfile", passwordFile.toAbsolutePath().toString())
                    .setConnectConfig("password", password)
                    .setServerConfig("password_encryption", "scram-sha-256")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("fsync", "on")
                    .setServerConfig("max_connections", MAX_CONNECTIONS)
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .setRegisterShutdownHook(stopOnJvmExit)
                    .start();
            EmbeddedPostgresServer server = new EmbeddedPostgresServer(pg, password);
            server.requirePassword(dataDirectory);
            log.info("Embedded PostgreSQL running on port {} with data in {} (user postgres, password in {})",
                    pg.getPort(), dataDirectory.toAbsolutePath(), passwordFile.toAbsolutePath());
            return server;
        } catch (IOException | java.sql.SQLException e) {
            throw new IllegalStateException("Could not start embedded PostgreSQL in " + dataDirectory.toAbsolutePath()
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * After a kill -9 of the JVM the postmaster it started keeps running and holds the data directory. Ask it for a
     * fast shutdown (SIGINT: abort sessions, checkpoint, exit) so this process can start its own.
     */
    static void stopOrphanedPostmaster(Path dataDirectory) throws IOException {
        Path pidFile = dataDirectory.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        List<String> lines = Files.readAllLines(pidFile);
        if (lines.isEmpty()) {
            return;
        }
        long pid;
        try {
            pid = Long.parseLong(lines.get(0).trim());
        } catch (NumberFormatException e) {
            return;
        }
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        if (process.isEmpty() || !process.get().isAlive()) {
            return; // stale pid file: postgres removes it on start
        }
        log.warn("Found a running postmaster (pid {}) left by a previous process on {}; stopping it", pid, dataDirectory);
        try {
            new ProcessBuilder("kill", "-INT", Long.toString(pid)).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
            process.get().onExit().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("A PostgreSQL server (pid " + pid + ") still holds " + dataDirectory
                    + " and did not stop; stop it and start again", e);
        }
    }

    /**
     * A data directory made before passwords (or edited by hand) may still trust local connections: the password is
     * set and the host-based rules rewritten to SCRAM only, then reloaded, before anything else connects.
     */
    private void requirePassword(Path dataDirectory) throws IOException, java.sql.SQLException {
        Path hba = dataDirectory.resolve("pg_hba.conf");
        if (Files.exists(hba) && Files.readString(hba).equals(PG_HBA)) {
            return;
        }
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(url(), "postgres", password);
             java.sql.Statement st = c.createStatement()) {
            st.execute("SET password_encryption = 'scram-sha-256'");
            st.execute("ALTER ROLE postgres PASSWORD '" + password + "'"); // [A-Za-z0-9_-] only: nothing to quote
            Files.writeString(hba, PG_HBA);
            // the reload rereads postgresql.conf: it must hold the max_connections the server started with, or
            // PostgreSQL logs that the file "contains errors" (a setting that needs a restart)
            st.execute("ALTER SYSTEM SET max_connections = " + MAX_CONNECTIONS);
            st.execute("SELECT pg_reload_conf()");
        }
    }

    static Path passwordFile(Path dataDirectory) {
        Path absolute = dataDirectory.toAbsolutePath().normalize();
        return absolute.resolveSibling(absolute.getFileName() + CREDENTIALS_FILE_SUFFIX);
    }

    /** Read, or generated (32 random bytes, URL-safe base64) and written with owner-only permissions. */
    static String passwordOf(Path file) throws IOException {
        if (Files.exists(file)) {
            String stored = Files.readString(file).strip();
            if (!stored.matches("[A-Za-z0-9_-]{20,}")) {
                throw new IllegalStateException("The embedded PostgreSQL password file " + file + " is not one this "
                        + "product wrote; restore it or remove it together with the data directory");
            }
            return stored;
        }
        byte[] bytes = new byte[32];
        new java.security.SecureRandom().nextBytes(bytes);
        String password = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        if (tmp.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(tmp, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        } else {
            Files.createFile(tmp);
        }
        Files.writeString(tmp, password + "\n");
        Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        return password;
    }

    /** The URL without credentials (give {@link #password()} separately, so it is in no log line or URL). */
    public String url() {
        return "jdbc:postgresql://localhost:" + postgres.getPort() + "/postgres";
    }

    public String password() {
        return password;
    }

    /** With the credentials in it: for tests and tools that take one string. */
    public String jdbcUrl() {
        return url() + "?user=postgres&password=" + password;
    }

    public int port() {
        return postgres.getPort();
    }

    @Override
    public void close() throws IOException {
        postgres.close();
    }
}
