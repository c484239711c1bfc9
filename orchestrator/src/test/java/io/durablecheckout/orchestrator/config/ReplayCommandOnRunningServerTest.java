package io.durablecheckout.orchestrator.config;

import io.durablecheckout.orchestrator.replay.ReplayCommand;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's {@code replay --checkout $ID} beside a running orchestrator: the command finds the live embedded
 * server on the data directory and reads through it, with the server's password (it requires one). Here, beside the
 * embedded server's other tests, and out of the mutation gate's replay tests (it starts a PostgreSQL).
 */
class ReplayCommandOnRunningServerTest {

    @Test
    void readsThroughTheRunningEmbeddedServerWithItsPassword() throws Exception {
        Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target")).toAbsolutePath(), "replay-live-pg-");
        try (EmbeddedPostgresServer running = EmbeddedPostgresServer.start(dir, 0)) {
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setUrl(running.jdbcUrl());
            Flyway.configure().dataSource(ds).locations("classpath:db/migration/core").load().migrate();

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = ReplayCommand.run(new String[]{"replay", "--all", "--data-dir", dir.toString()},
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                    d -> {
                        throw new AssertionError("a server runs on " + d + ": none may be started");
                    });
            assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("replaying 0 checkout(s)");
        }
    }
}
