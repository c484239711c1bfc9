package io.durablecheckout.orchestrator.config;

import io.durablecheckout.orchestrator.cluster.ClusterProperties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.mock.env.MockEnvironment;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The typed settings read the documented keys (the names the tests, the docs and operators pass). */
class TypedSettingsTest {

    @Test
    void keysBindToTheRecordsAndAbsentKeysGiveTheDefaults() {
        MockEnvironment env = new MockEnvironment()
                .withProperty("checkout.datasource.idle-in-transaction-timeout", "120s")
                .withProperty("checkout.datasource.maximum-pool-size", "7")
                .withProperty("checkout.processing.claim-timeout", "3s")
                .withProperty("checkout.processing.node-id", "node-a");
        Binder binder = Binder.get(env);
        DatabaseProperties database = binder.bindOrCreate("checkout.datasource", DatabaseProperties.class);
        assertThat(database.idleInTransactionTimeout()).isEqualTo(Duration.ofSeconds(120));
        assertThat(database.maximumPoolSize()).isEqualTo(7);
        ClusterProperties cluster = binder.bindOrCreate("checkout.processing", ClusterProperties.class);
        assertThat(cluster.claimTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(cluster.nodeId()).isEqualTo("node-a");
        assertThat(cluster.balanceInterval()).isEqualTo(Duration.ofSeconds(2));

        Binder empty = Binder.get(new MockEnvironment());
        EventProcessingConfiguration.ProcessingProperties defaults =
                empty.bindOrCreate("checkout.processing", EventProcessingConfiguration.ProcessingProperties.class);
        assertThat(defaults.readModelTick()).isEqualTo(Duration.ofSeconds(1));
        assertThat(defaults.processors().get("payments"))
                .isEqualTo(new EventProcessingConfiguration.ProcessingProperties.Processor(4, 8));

        assertThat(empty.bindOrCreate("checkout.datasource", DatabaseProperties.class).idleInTransactionTimeout())
                .isEqualTo(Duration.ofSeconds(15));
        assertThat(empty.bindOrCreate("checkout.embedded-postgres", DatabaseProperties.EmbeddedPostgres.class).dataDir())
                .isEqualTo("./data");
    }

    /** One key of a processor set alone keeps the other's default (it was zero, and Axon refused to start). */
    @Test
    void aProcessorsSegmentsAloneKeepItsBatchSize() {
        MockEnvironment env = new MockEnvironment()
                .withProperty("checkout.processing.processors.payments.segments", "2")
                .withProperty("checkout.processing.processors.receipts.batch-size", "8")
                .withProperty("checkout.processing.read-model-tick", "250ms");
        EventProcessingConfiguration.ProcessingProperties processing = Binder.get(env)
                .bindOrCreate("checkout.processing", EventProcessingConfiguration.ProcessingProperties.class);
        assertThat(processing.processors().get("payments"))
                .isEqualTo(new EventProcessingConfiguration.ProcessingProperties.Processor(2, 8));
        assertThat(processing.processors().get("receipts"))
                .isEqualTo(new EventProcessingConfiguration.ProcessingProperties.Processor(2, 8));
        assertThat(processing.processors().get("inventory"))
                .isEqualTo(new EventProcessingConfiguration.ProcessingProperties.Processor(2, 16));
        assertThat(processing.readModelTick()).isEqualTo(Duration.ofMillis(250));
    }
}
