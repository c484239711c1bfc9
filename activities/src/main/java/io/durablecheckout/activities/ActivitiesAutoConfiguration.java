package io.durablecheckout.activities;

import io.micrometer.core.instrument.MeterRegistry;
import org.axonframework.eventhandling.gateway.EventGateway;

import io.durablecheckout.activities.payments.HttpPaymentProvider;
import io.durablecheckout.activities.payments.PaymentProvider;
import io.durablecheckout.activities.payments.PaymentsProperties;
import io.durablecheckout.activities.payments.WebhookSecret;
import io.durablecheckout.activities.privacy.DataKeyStore;
import io.durablecheckout.activities.privacy.FileDataKeyStore;
import io.durablecheckout.activities.privacy.LegacyDataKeys;
import io.durablecheckout.activities.privacy.PersonalDataVault;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Defaults that tests and deployments may replace. An auto-configuration (not a scanned configuration) so that
 * {@code @ConditionalOnMissingBean} sees the application's and the tests' own beans, whatever their order.
 */
@AutoConfiguration
@EnableConfigurationProperties({PaymentsProperties.class, HeartbeatProperties.class})
public class ActivitiesAutoConfiguration {

    /** No pause: fault injection (the orchestrator's {@code faults} package) and tests supply their own. */
    @Bean
    @ConditionalOnMissingBean
    public WorkerPauseHook workerPauseHook() {
        return WorkerPauseHook.NONE;
    }

    /**
     * The lease hold and the pause hook around the workers' intent handlers ({@link IntentHandling}, an Axon handler
     * enhancer Axon's Spring support picks up as a bean); beans looked up when the first intent arrives.
     */
    @Bean
    public IntentHandling intentHandling(org.springframework.beans.factory.ObjectProvider<LeaseKeeper> leases,
                                         org.springframework.beans.factory.ObjectProvider<WorkerPauseHook> pauseHook) {
        return new IntentHandling(() -> leases.getIfAvailable(() -> LeaseKeeper.NONE),
                () -> pauseHook.getIfAvailable(() -> WorkerPauseHook.NONE));
    }

    /** Heartbeats from lease owners ({@link HeartbeatProperties}, docs/leases-and-fencing.md). */
    @Bean
    @ConditionalOnMissingBean(LeaseKeeper.class)
    @ConditionalOnProperty(name = "checkout.activities.enabled", havingValue = "true", matchIfMissing = true)
    public LeaseKeeper leaseKeeper(org.springframework.beans.factory.ObjectProvider<EventGateway> eventGateway,
                                   MeterRegistry meters, HeartbeatProperties heartbeats) {
        EventGateway events = eventGateway.getIfAvailable();
        if (events == null) {
            return LeaseKeeper.NONE; // no Axon in this context (the simulator on its own): no worker holds a lease
        }
        return new HeartbeatLeaseKeeper(events, java.time.Clock.systemUTC(), heartbeats.leaseClaimMargin(),
                heartbeats.leaseClaimDelay(), heartbeats.heartbeatInterval(), heartbeats.heartbeatMaxHold(), meters);
    }

    /** The provider notifications' shared secret: configured, or generated for the embedded demo only. */
    @Bean
    @ConditionalOnMissingBean
    public WebhookSecret webhookSecret(Environment environment,
                                       org.springframework.beans.factory.ObjectProvider<javax.sql.DataSource> dataSource) {
        return WebhookSecret.from(environment, dataSource::getObject);
    }

    /** No mutant: the orchestrator's fault injection supplies its own when one is switched on. */
    @Bean
    @ConditionalOnMissingBean
    public ResourceMutants resourceMutants() {
        return ResourceMutants.NONE;
    }

    /**
     * The checkouts' data keys, outside PostgreSQL: files under {@value DataKeyStore#PROPERTY} (in the embedded demo,
     * beside its data directory). Another adapter (a KMS, docs/security.md) replaces this bean.
     */
    @Bean
    @ConditionalOnMissingBean
    public DataKeyStore dataKeyStore(Environment environment) {
        return FileDataKeyStore.location(environment).<DataKeyStore>map(FileDataKeyStore::new)
                .orElseGet(DataKeyStore.Unconfigured::new);
    }

    /** Seals and opens checkouts' personal data; erasure destroys a checkout's key. */
    @Bean
    @ConditionalOnMissingBean
    @org.springframework.boot.autoconfigure.condition.ConditionalOnBean(javax.sql.DataSource.class)
    public PersonalDataVault personalDataVault(javax.sql.DataSource dataSource, DataKeyStore keys) {
        return new PersonalDataVault(dataSource, keys);
    }

    /**
     * The one-time move of keys an earlier version kept in PostgreSQL ({@link LegacyDataKeys}), once the application
     * has started (the schema is migrated then; not in a training start, which stops at the refresh).
     */
    @Bean
    @org.springframework.boot.autoconfigure.condition.ConditionalOnBean(javax.sql.DataSource.class)
    public org.springframework.context.ApplicationListener<org.springframework.boot.context.event.ApplicationStartedEvent>
            legacyDataKeys(javax.sql.DataSource dataSource, DataKeyStore keys, PersonalDataVault vault) {
        return event -> {
            if (!(keys instanceof DataKeyStore.Unconfigured)) new LegacyDataKeys(dataSource, keys, vault).run();
        };
    }

    /** The payments worker's provider calls, {@code checkout.payments.max-concurrent-calls} at once. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnProperty(name = {"checkout.activities.enabled", "checkout.activities.payments.enabled"},
            havingValue = "true", matchIfMissing = true)
    public io.durablecheckout.activities.payments.ProviderCalls providerCalls(PaymentsProperties properties,
            org.springframework.beans.factory.ObjectProvider<org.axonframework.common.transaction.TransactionManager> transactions,
            org.springframework.beans.factory.ObjectProvider<org.axonframework.config.Configuration> axon) {
        // no Axon transaction manager (a context without Axon, e.g. the simulator's tests): calls run unattached
        return new io.durablecheckout.activities.payments.ProviderCalls(properties.maxConcurrentCalls(),
                transactions.getIfAvailable(),
                () -> {
                    org.axonframework.config.Configuration c = axon.getIfAvailable();
                    return c == null ? java.util.List.of() : c.correlationDataProviders();
                });
    }

    /**
     * The payments worker's durable intake (decision 132), drained by {@code checkout.payments.max-concurrent-calls}
     * threads fairly across tenants; a failed call is parked by the application's {@link PaymentIntake.Parking}
     * (the payments processor's dead-letter queue) or, without one, retried from the intake.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnProperty(name = {"checkout.activities.enabled", "checkout.activities.payments.enabled"},
            havingValue = "true", matchIfMissing = true)
    @org.springframework.boot.autoconfigure.condition.ConditionalOnExpression(
            "${checkout.payments.max-concurrent-calls:32} > 0")
    @org.springframework.boot.autoconfigure.condition.ConditionalOnBean(javax.sql.DataSource.class)
    public io.durablecheckout.activities.payments.PaymentIntake paymentIntake(PaymentsProperties properties,
            javax.sql.DataSource dataSource,
            org.springframework.beans.factory.ObjectProvider<org.axonframework.common.transaction.TransactionManager> transactions,
            org.springframework.beans.factory.ObjectProvider<org.axonframework.config.Configuration> axon,
            org.springframework.beans.factory.ObjectProvider<io.durablecheckout.activities.payments.PaymentIntake.Parking> parking) {
        return new io.durablecheckout.activities.payments.PaymentIntake(
                new org.springframework.jdbc.core.JdbcTemplate(dataSource), transactions.getIfAvailable(),
                () -> {
                    org.axonframework.config.Configuration c = axon.getIfAvailable();
                    return c == null ? java.util.List.of() : c.correlationDataProviders();
                },
                (checkout, sequence) -> axon.getObject().eventStore().readEvents(checkout, sequence).asStream()
                        .filter(e -> e.getSequenceNumber() == sequence).findFirst().orElse(null),
                () -> parking.getIfAvailable(() -> io.durablecheckout.activities.payments.PaymentIntake.Parking.NONE),
                properties.maxConcurrentCalls(), java.time.Duration.ofMillis(250));
    }

    /** The intake's drainers start once the application has started (the schema is migrated then). */
    @Bean
    public org.springframework.context.ApplicationListener<org.springframework.boot.context.event.ApplicationStartedEvent>
            paymentIntakeStart(org.springframework.beans.factory.ObjectProvider<io.durablecheckout.activities.payments.PaymentIntake> intake) {
        return event -> intake.ifAvailable(io.durablecheckout.activities.payments.PaymentIntake::start);
    }

    /** The real HTTP adapter unless the application supplies another {@link PaymentProvider}. */
    @Bean
    @ConditionalOnMissingBean(PaymentProvider.class)
    @ConditionalOnProperty(name = {"checkout.activities.enabled", "checkout.activities.payments.enabled"},
            havingValue = "true", matchIfMissing = true)
    public HttpPaymentProvider httpPaymentProvider(PaymentsProperties properties, Environment environment) {
        return HttpPaymentProvider.from(properties, environment);
    }
}
