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

    private final EmbeddedPostgres postgres;

    private EmbeddedPostgresServer(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    public static EmbeddedPostgresServer start(Path dataDirectory, int port) {
        try {
            Files.createDirectories(dataDirectory);
            stopOrphanedPostmaster(dataDirectory);
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("fsync", "on")
                    .setServerConfig("max_connections", "300")
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .start();
            log.info("Embedded PostgreSQL running on port {} with data in {}", pg.getPort(), dataDirectory.toAbsolutePath());
            return new EmbeddedPostgresServer(pg);
        } catch (IOException e) {
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

    public String jdbcUrl() {
        return postgres.getJdbcUrl("postgres", "postgres");
    }

    public int port() {
        return postgres.getPort();
    }

    @Override
    public void close() throws IOException {
        postgres.close();
    }
}
