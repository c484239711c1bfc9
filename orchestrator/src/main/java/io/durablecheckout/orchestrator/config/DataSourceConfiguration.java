package io.durablecheckout.orchestrator.config;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.durablecheckout.orchestrator.cluster.NodeSession;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionBuilder;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.SpringProperties;
import org.springframework.core.env.Environment;

import javax.sql.DataSource;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The application's one DataSource. Defined here rather than left to Boot: with Boot 4, Axon 4.13's JDBC
 * auto-configuration can otherwise start with no event store (see docs/decisions.md).
 * <p>
 * No {@code spring.datasource.url}: an embedded PostgreSQL on {@code checkout.embedded-postgres.data-dir}.
 * With a URL: that server, with {@code spring.datasource.username/password}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({DatabaseProperties.class, DatabaseProperties.EmbeddedPostgres.class})
public class DataSourceConfiguration {

    static final String URL = "spring.datasource.url";

    @Bean(destroyMethod = "close")
    EmbeddedPostgresHolder embeddedPostgres(Environment env, DatabaseProperties.EmbeddedPostgres properties) {
        if (hasText(env.getProperty(URL))) {
            return new EmbeddedPostgresHolder(null);
        }
        return new EmbeddedPostgresHolder(EmbeddedPostgresServer.start(Path.of(properties.dataDir()), properties.port(),
                false)); // stopped by this bean, after everything that uses it (GracefulShutdown)
    }

    @Bean(destroyMethod = "close")
    HikariDataSource dataSource(Environment env, EmbeddedPostgresHolder embedded, DatabaseProperties properties,
                                ObjectProvider<NodeSession> session) {
        HikariConfig config = new HikariConfig();
        String url = env.getProperty(URL);
        if (hasText(url)) {
            config.setJdbcUrl(url);
            config.setUsername(env.getProperty("spring.datasource.username"));
            config.setPassword(env.getProperty("spring.datasource.password"));
        } else {
            EmbeddedPostgresServer server = embedded.server();
            config.setJdbcUrl(server.url());
            config.setUsername("postgres");
            config.setPassword(server.password());
        }
        config.setPoolName("checkout");
        // A node that freezes inside a transaction (GC, SIGSTOP, a stalled VM) would hold its row locks, and with them
        // other nodes' takeover of its work, for as long as it is frozen. PostgreSQL ends such a session instead; the
        // frozen node's transaction fails when it wakes. Longer than any idle gap of a live transaction (the
        // payments worker waits on the provider inside one, bounded by checkout.payments.request-timeout).
        Duration idle = properties.idleInTransactionTimeout();
        config.setConnectionInitSql("SET idle_in_transaction_session_timeout = " + idle.toMillis());
        // That timeout misses a session frozen mid-statement (the server blocked sending to it, or waiting for the
        // rest of a statement): the live nodes end those by name once this node stops refreshing its membership.
        NodeSession named = session.getIfAvailable();
        if (named != null) {
            config.addDataSourceProperty("ApplicationName", named.applicationName());
        }
        // The event store appends a unit of work's events with one JDBC batch; rewritten by the driver into one
        // multi-row INSERT instead of a statement per event (docs/decisions.md: batched appends).
        config.addDataSourceProperty("reWriteBatchedInserts", "true");
        // The driver otherwise puts a failed statement's parameter values in its exception messages (a lost append race
        // logged the whole event batch, sealed personal data included, as 2 KB of hex): the SQL state is what we read.
        config.addDataSourceProperty("logServerErrorDetail", "false");
        config.setMaximumPoolSize(poolSize(env, properties));
        config.setAutoCommit(true);
        return new HikariDataSource(config);
    }

    /** The configured pool size, or 24 plus the provider calls this node may have in flight (each holds a connection,
     *  its operation row locked, while it waits on the provider). */
    static int poolSize(Environment env, DatabaseProperties properties) {
        if (env.containsProperty("checkout.datasource.maximum-pool-size")) {
            return properties.maximumPoolSize();
        }
        boolean payments = env.getProperty("checkout.activities.enabled", Boolean.class, true)
                && env.getProperty("checkout.activities.payments.enabled", Boolean.class, true);
        return properties.maximumPoolSize()
                + (payments ? env.getProperty("checkout.payments.max-concurrent-calls", Integer.class, 32) : 0);
    }

    private static boolean hasText(String s) {
        return s != null && !s.isBlank();
    }

    /**
     * A class-data sharing training start that stops at the refresh ({@code -Dspring.context.exit=onRefresh}: the
     * integration tests' nodes train so, decision 56; the build's own runs checkouts first, decision 91) halts the
     * JVM once every bean exists, before anything starts, without closing beans or running shutdown hooks: the
     * embedded server would outlive it. Stopped then, by the last of the post-initialization callbacks: registered
     * after every other bean definition, so the others (which may read the database) have run.
     */
    @Bean
    static BeanDefinitionRegistryPostProcessor stopEmbeddedPostgresBeforeTrainingHalt() {
        return new BeanDefinitionRegistryPostProcessor() {
            @Override
            public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
                registry.registerBeanDefinition("embeddedPostgresTrainingStop", BeanDefinitionBuilder
                        .genericBeanDefinition(TrainingStop.class)
                        .setAutowireMode(AbstractBeanDefinition.AUTOWIRE_CONSTRUCTOR).getBeanDefinition());
            }

            @Override
            public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
            }
        };
    }

    /** Stops the embedded server at the end of a training start (see above); does nothing otherwise. */
    record TrainingStop(EmbeddedPostgresHolder embedded) implements SmartInitializingSingleton {
        @Override
        public void afterSingletonsInstantiated() {
            if ("onRefresh".equalsIgnoreCase(SpringProperties.getProperty("spring.context.exit"))) {
                try {
                    embedded.close();
                } catch (Exception e) {
                    throw new IllegalStateException("stopping the embedded PostgreSQL of a training start", e);
                }
            }
        }
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
