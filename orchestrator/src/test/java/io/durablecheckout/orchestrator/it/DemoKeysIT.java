package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;

import io.durablecheckout.orchestrator.tenancy.ApiKeys;
import io.durablecheckout.orchestrator.tenancy.DemoKeys;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 10: changing a demo key revokes the old one; turning the demo off revokes them all; over real HTTP, at once.
 * (Runs {@link DemoKeys} as a start with that configuration would, then as this context's own start again.)
 */
class DemoKeysIT extends IntegrationTestBase {

    @Autowired
    ApiKeys apiKeys;

    @Autowired
    DemoKeys demoKeys;

    @Autowired
    Environment environment;

    @Test
    void aChangedOrDisabledDemoKeyStopsWorkingAtOnce() {
        try {
            assertThat(api.get("/api/v1/checkouts?limit=1").status()).isEqualTo(200);

            start(new MockEnvironment().withProperty("checkout.demo.api-key", "changed-demo-key"));
            assertThat(api.get("/api/v1/checkouts?limit=1").status()).isEqualTo(401);
            assertThat(api.send("GET", "/api/v1/checkouts?limit=1", "changed-demo-key", java.util.Map.of(), null)
                    .status()).isEqualTo(200);
            assertThat(apiKeys.resolve("demo-operator-key")).isPresent();

            start(new MockEnvironment().withProperty("checkout.demo.enabled", "false"));
            assertThat(apiKeys.resolve("changed-demo-key")).isEmpty();
            assertThat(apiKeys.resolve("demo-operator-key")).isEmpty();
            assertThat(apiKeys.resolve("demo-admin-key")).isEmpty();
            assertThat(api.send("GET", "/api/v1/checkouts?limit=1", HttpApi.OPERATOR_KEY, java.util.Map.of(), null)
                    .status()).isEqualTo(401);

            // the demo admin key exists only in the embedded demo
            start(new MockEnvironment().withProperty("spring.datasource.url", "jdbc:postgresql://elsewhere/db"));
            assertThat(apiKeys.resolve("demo-api-key")).isPresent();
            assertThat(apiKeys.resolve("demo-admin-key")).isEmpty();
        } finally {
            demoKeys.afterSingletonsInstantiated(); // this context's own configuration again
        }
        assertThat(apiKeys.resolve("demo-api-key")).isPresent();
        assertThat(apiKeys.resolve("demo-admin-key")).isPresent();
        assertThat(apiKeys.resolve("changed-demo-key")).isEmpty();
    }

    private void start(Environment configuration) {
        new DemoKeys(apiKeys, configuration).afterSingletonsInstantiated();
    }
}
