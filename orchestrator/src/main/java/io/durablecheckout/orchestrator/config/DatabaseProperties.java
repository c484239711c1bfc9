package io.durablecheckout.orchestrator.config;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;

/**
 * The application's own database settings (the server itself is {@code spring.datasource.*}).
 *
 * @param idleInTransactionTimeout PostgreSQL ends a session idle inside a transaction for this long (a frozen node's
 *                                 row locks go with it); longer than a provider call (default 15 s; 0: no limit)
 * @param maximumPoolSize          connections in the pool (default 24, plus the payments' provider calls in flight:
 *                                 DataSourceConfiguration#poolSize)
 */
@ConfigurationProperties("checkout.datasource")
public record DatabaseProperties(Duration idleInTransactionTimeout, Integer maximumPoolSize) {

    public DatabaseProperties {
        idleInTransactionTimeout = idleInTransactionTimeout != null ? idleInTransactionTimeout : Duration.ofSeconds(15);
        maximumPoolSize = maximumPoolSize != null ? maximumPoolSize : 24;
    }

    /**
     * {@code checkout.embedded-postgres.*}: the in-process PostgreSQL started when no {@code spring.datasource.url}
     * is set.
     *
     * @param dataDir its data directory, kept across restarts (default {@code ./data})
     * @param port    its port (default 0: any free one)
     */
    @ConfigurationProperties("checkout.embedded-postgres")
    public record EmbeddedPostgres(String dataDir, Integer port) {
        public EmbeddedPostgres {
            dataDir = dataDir != null && !dataDir.isBlank() ? dataDir : "./data";
            port = port != null ? port : 0;
        }
    }
}
