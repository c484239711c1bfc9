package io.durablecheckout.orchestrator.config;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/** The pool has room for the payments' provider calls, each of which holds a connection while the provider answers. */
class PoolSizeTest {

    private static int poolSize(MockEnvironment env) {
        Integer configured = env.getProperty("checkout.datasource.maximum-pool-size", Integer.class);
        return DataSourceConfiguration.poolSize(env, new DatabaseProperties(null, configured));
    }

    @Test
    void by_default_the_pool_adds_the_provider_calls_in_flight_to_its_own_24() {
        assertThat(poolSize(new MockEnvironment())).isEqualTo(24 + 32);
        assertThat(poolSize(new MockEnvironment().withProperty("checkout.payments.max-concurrent-calls", "4")))
                .isEqualTo(28);
    }

    @Test
    void a_node_without_payments_or_a_configured_size_keeps_its_own() {
        assertThat(poolSize(new MockEnvironment().withProperty("checkout.activities.payments.enabled", "false")))
                .isEqualTo(24);
        assertThat(poolSize(new MockEnvironment().withProperty("checkout.activities.enabled", "false"))).isEqualTo(24);
        assertThat(poolSize(new MockEnvironment().withProperty("checkout.datasource.maximum-pool-size", "7")))
                .isEqualTo(7);
    }
}
