package io.durablecheckout.activities;

import io.durablecheckout.activities.inventory.DemoStockSeeder;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.activities.inventory.InventoryQueryHandler;
import io.durablecheckout.activities.inventory.InventoryResource;
import io.durablecheckout.activities.inventory.InventoryWorker;
import io.durablecheckout.activities.payments.HttpPaymentProvider;
import io.durablecheckout.activities.payments.PaymentProvider;
import io.durablecheckout.activities.payments.PaymentsProperties;
import io.durablecheckout.activities.payments.PaymentsResource;
import io.durablecheckout.activities.payments.PaymentsWorker;
import io.durablecheckout.activities.receipts.ReceiptsResource;
import io.durablecheckout.activities.receipts.ReceiptsWorker;
import io.durablecheckout.activities.simulator.PaymentProviderSimulator;
import io.durablecheckout.activities.simulator.SimulatorProperties;
import io.durablecheckout.activities.simulator.SimulatorServer;
import io.durablecheckout.activities.simulator.SimulatorWebhookSender;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.gateway.EventGateway;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.PlatformTransactionManager;

import javax.sql.DataSource;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The beans the orchestrator's application gets from this module, and the switches that remove them. No database
 * is touched: nothing here runs a query.
 */
class ActivitiesWiringTest {

    /** What the orchestrator provides. */
    @Configuration
    static class HostBeans {
        @Bean
        DataSource dataSource() {
            return new SimpleDriverDataSource();
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        EventGateway eventGateway() {
            return new RecordingEventGateway();
        }

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ActivitiesAutoConfiguration.class))
            .withUserConfiguration(HostBeans.class, ActivitiesConfiguration.class);

    @Test
    void everyServiceIsOnByDefault() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(InventoryWorker.class).hasSingleBean(InventoryResource.class)
                    .hasSingleBean(InventoryAdmin.class).hasSingleBean(InventoryQueryHandler.class)
                    .hasSingleBean(DemoStockSeeder.class)
                    .hasSingleBean(PaymentsWorker.class).hasSingleBean(PaymentsResource.class)
                    .hasSingleBean(ReceiptsWorker.class).hasSingleBean(ReceiptsResource.class)
                    .hasSingleBean(PaymentProviderSimulator.class).hasSingleBean(SimulatorWebhookSender.class)
                    .hasSingleBean(SimulatorServer.class)
                    .hasSingleBean(ActivitiesAutoConfiguration.class);
            assertThat(context.getBean(PaymentProvider.class)).isInstanceOf(HttpPaymentProvider.class);
            assertThat(context.getBean(WorkerPauseHook.class)).isSameAs(WorkerPauseHook.NONE);

            PaymentsProperties payments = context.getBean(PaymentsProperties.class);
            assertThat(payments.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
            assertThat(payments.requestTimeout()).isEqualTo(Duration.ofSeconds(2));
            SimulatorProperties simulator = context.getBean(SimulatorProperties.class);
            assertThat(simulator.timeoutDelay()).isEqualTo(Duration.ofSeconds(5));
            assertThat(simulator.slowDelay()).isEqualTo(Duration.ofSeconds(1));
            assertThat(simulator.downForAttempts()).isEqualTo(2);
            assertThat(simulator.port()).isZero();
            assertThat(simulator.webhooks().enabled()).isFalse();
            assertThat(simulator.webhooks().delay()).isEqualTo(Duration.ofMillis(200));
        });
    }

    @Test
    void processingGroupsAreNamedAsTheOrchestratorConfiguresThem() {
        assertThat(InventoryWorker.class.getAnnotation(ProcessingGroup.class).value()).isEqualTo("inventory");
        assertThat(PaymentsWorker.class.getAnnotation(ProcessingGroup.class).value()).isEqualTo("payments");
        assertThat(ReceiptsWorker.class.getAnnotation(ProcessingGroup.class).value()).isEqualTo("receipts");
    }

    @Test
    void activitiesCanBeSwitchedOffLeavingTheSimulator() {
        runner.withPropertyValues("checkout.activities.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(InventoryWorker.class).doesNotHaveBean(PaymentsWorker.class)
                    .doesNotHaveBean(ReceiptsWorker.class).doesNotHaveBean(InventoryResource.class)
                    .doesNotHaveBean(PaymentsResource.class).doesNotHaveBean(ReceiptsResource.class)
                    .doesNotHaveBean(DemoStockSeeder.class).doesNotHaveBean(PaymentProvider.class);
            assertThat(context).hasSingleBean(PaymentProviderSimulator.class);
            // the catalogue query stays: an API-only node on plain JDBC must still refuse unknown SKUs
            assertThat(context).hasSingleBean(InventoryQueryHandler.class);
        });
    }

    @Test
    void simulatorAndDemoSeedingHaveTheirOwnSwitches() {
        runner.withPropertyValues("checkout.simulator.enabled=false", "checkout.demo.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(PaymentProviderSimulator.class).doesNotHaveBean(SimulatorServer.class)
                    .doesNotHaveBean(SimulatorWebhookSender.class).doesNotHaveBean(DemoStockSeeder.class);
            // no simulator, so no port of its own is opened or published
            assertThat(context.getEnvironment().getProperty(SimulatorServer.PORT_PROPERTY)).isNull();
            assertThat(context).hasSingleBean(PaymentsWorker.class);
        });
    }

    @Test
    void testsAndDeploymentsCanReplaceThePauseHookAndTheProvider() {
        WorkerPauseHook parking = intent -> { };
        runner.withBean("parkingHook", WorkerPauseHook.class, () -> parking)
                .withBean("stubProvider", PaymentProvider.class, () -> HttpPaymentProvider.from(
                        new PaymentsProperties("http://provider.invalid", null, null, null), null))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(WorkerPauseHook.class)).isSameAs(parking);
                    assertThat(context).getBeans(PaymentProvider.class).containsOnlyKeys("stubProvider");
                });
    }
}
