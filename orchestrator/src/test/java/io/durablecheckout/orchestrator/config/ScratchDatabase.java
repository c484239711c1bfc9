package io.durablecheckout.orchestrator.config;

import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real PostgreSQL for one test class: embedded, in a fresh directory under {@code target/}, with the given
 * migrations of the product applied in order. Close it in {@code @AfterAll}.
 */
public record ScratchDatabase(EmbeddedPostgresServer server, PGSimpleDataSource dataSource) implements AutoCloseable {

    public static ScratchDatabase start(String name, String... migrations) throws IOException {
        Path target = Path.of("target");
        Files.createDirectories(target);
        EmbeddedPostgresServer server =
                EmbeddedPostgresServer.start(Files.createTempDirectory(target.toAbsolutePath(), name + "-pg-"), 0);
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(server.jdbcUrl());
        dataSource.setUser("postgres");
        for (String migration : migrations) {
            try (InputStream in = ScratchDatabase.class.getResourceAsStream(migration)) {
                new JdbcTemplate(dataSource).execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return new ScratchDatabase(server, dataSource);
    }

    @Override
    public void close() throws Exception {
        server.close();
    }
}
