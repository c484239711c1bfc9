package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.service.CheckoutIds;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.Environment;
import org.springframework.beans.factory.annotation.Autowired;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 53: the demo's provider simulator is not on the application's port, where anyone could decide a predicted
 * operation first (tok_decline for {@code <id>/authorize-payment}) or read its payment's status. It is on its own
 * loopback server, which the embedded demo's payments call by default.
 */
class SimulatorPortIT extends IntegrationTestBase {

    @Autowired
    Environment environment;

    @Test
    void theSimulatorsPathsAnswer404OnTheApplicationsPortAndTheDemoStillPays() {
        String key = "sim-" + UUID.randomUUID();
        String operation = CheckoutIds.legacyIdFor(new TenantId("demo"), key).value() + "/authorize-payment";
        String decline = "{\"operationId\":\"" + operation + "\",\"amountMinor\":900,\"currency\":\"EUR\","
                + "\"paymentToken\":\"tok_decline\"}";
        for (String path : new String[]{"/simulator/provider/v1/authorizations",
                "/simulator/provider/v1/authorizations/" + operation,
                "/simulator/provider/v1/authorizations/" + operation + "/void"}) {
            HttpApi.Response post = api.send("POST", path, null, Map.of("Idempotency-Key", operation,
                    "Content-Type", "application/json"), decline);
            assertThat(post.status()).as("POST " + path + ": " + post.body()).isEqualTo(404);
            HttpApi.Response get = api.send("GET", path, null, Map.of(), null);
            assertThat(get.status()).as("GET " + path).isEqualTo(404);
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM simulator_calls WHERE operation_id = ?", Integer.class,
                operation)).isZero();

        // the simulator is on its own loopback port, and the embedded demo pays through it out of the box
        assertThat(environment.getProperty("local.checkout.simulator.port", Integer.class)).isNotNull().isNotEqualTo(port);
        HttpApi.Response created = api.startCheckout(key, HttpApi.checkoutBody("SKU-0306", 1, 900, "tok_approve"));
        assertThat(created.status()).as(created.body()).isEqualTo(202);
        String id = created.json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> "completed".equals(api.get("/api/v1/checkouts/" + id)
                .json().path("state").asText()));
        assertThat(jdbc.queryForObject("SELECT count(*) FROM simulator_calls WHERE operation_id = ? AND action = 'AUTHORIZE'",
                Integer.class, id + "/authorize-payment")).isEqualTo(1);
    }
}
