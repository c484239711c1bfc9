package io.durablecheckout.orchestrator.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The demo's embedded PostgreSQL lets in only whoever holds the generated password, before and after a restart. */
class EmbeddedPostgresPasswordTest {

    @Test
    void withoutThePasswordNobodyConnectsAndTheFileIsTheOwnersOnly() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "pg-password-");
        Path data = dir.resolve("data");
        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.start(data, 0)) {
            assertRefusedWithout(server);
            assertThat(select1(server.url(), server.password())).isEqualTo(1);
        }
        Path file = EmbeddedPostgresServer.passwordFile(data);
        assertThat(Files.readString(file).strip()).hasSizeGreaterThanOrEqualTo(40);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");

        // a data directory of an earlier version trusted every local connection: the next start closes that
        Files.writeString(data.resolve("pg_hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 trust\n");
        try (EmbeddedPostgresServer again = EmbeddedPostgresServer.start(data, 0)) {
            assertRefusedWithout(again);
            assertThat(select1(again.url(), again.password())).isEqualTo(1);
            assertThat(Files.readString(data.resolve("pg_hba.conf"))).doesNotContain("trust");
        }
    }

    private static void assertRefusedWithout(EmbeddedPostgresServer server) {
        assertThatThrownBy(() -> select1(server.url(), null)).isInstanceOf(SQLException.class);
        assertThatThrownBy(() -> select1(server.url(), "wrong")).isInstanceOf(SQLException.class)
                .hasMessageContaining("password authentication failed");
    }

    private static int select1(String url, String password) throws SQLException {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("user", "postgres");
        if (password != null) p.setProperty("password", password);
        try (Connection c = DriverManager.getConnection(url, p); var rs = c.createStatement().executeQuery("SELECT 1")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
