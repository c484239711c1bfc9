package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.activities.simulator.SimulatorFaults;
import io.durablecheckout.api.values.TenantId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.durablecheckout.orchestrator.it.support.HttpApi.checkoutBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Acceptance 2 of issue 13: a poison event parks its checkout only. The simulator answers {@code tok_long_reference}
 * with a provider reference too long for {@code payment_operations}; the payments resource refuses to write it, the
 * payments processor parks the intent in its dead-letter queue for that checkout, every other checkout (on the same
 * segments, in the same batches) completes, the parked checkout shows as stuck with the cause, and once the provider
 * is fixed an operator's retry completes it.
 */
class PoisonEventIT extends IntegrationTestBase {

    @Autowired
    SimulatorFaults faults;

    @Autowired
    InventoryAdmin inventory;

    @Autowired
    io.durablecheckout.activities.payments.PaymentIntake.Parking intakeParking;

    @AfterEach
    void restoreTheBug() {
        faults.oversizedReferences(true);
    }

    @Test
    void aPoisonEventParksOneCheckoutTheOthersCompleteAndRetryCompletesItOnceFixed() {
        faults.oversizedReferences(true);
        String sku = "S-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, 100);

        List<String> healthy = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            healthy.add(start(sku, "tok_approve"));
        }
        String poisoned = start(sku, "tok_long_reference");
        for (int i = 0; i < 4; i++) {
            healthy.add(start(sku, "tok_approve"));
        }

        // every other checkout completes while the poison is parked
        for (String id : healthy) {
            awaitState(id, "completed");
        }
        JsonNode parked = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> operator("GET", "/api/v1/operator/dead-letters?checkoutId=" + poisoned, null),
                        r -> r.status() == 200 && r.json().get("deadLetters").size() == 1)
                .json().get("deadLetters").get(0);
        assertThat(parked.get("processor").asText()).isEqualTo("payments");
        assertThat(parked.get("eventType").asText()).isEqualTo("PaymentAuthorizationRequestedEvent");
        assertThat(parked.get("cause").asText()).contains("PoisonInputException", "provider_reference is",
                "at most 255");

        // the intake's claim asks the queue in its own statement: true for the parked checkout only (a later intent
        // of it parks behind; the others cost no query of the queue)
        String parkedSql = "SELECT " + intakeParking.parkedCondition() + " FROM (SELECT ?::text AS checkout_id) r";
        assertThat(jdbc.queryForObject(parkedSql, Boolean.class, poisoned)).isTrue();
        assertThat(jdbc.queryForObject(parkedSql, Boolean.class, healthy.get(0))).isFalse();

        // shown as stuck, with the reason, on the checkout and in the waiting list
        JsonNode view = api.get("/api/v1/checkouts/" + poisoned).json();
        assertThat(view.get("state").asText()).isEqualTo("stock_reserved");
        assertThat(view.get("parked").get(0).get("processor").asText()).isEqualTo("payments");
        assertThat(view.get("waiting").get("reason").asText()).startsWith("stuck: the payments processor parked");
        JsonNode waiting = operator("GET", "/api/v1/checkouts?waiting=true&limit=200", null).json();
        assertThat(waiting.toString()).contains(poisoned, "stuck: the payments processor parked");
        // nothing half-written: the failed intent's writes went back to its savepoint
        assertThat(count("SELECT count(*) FROM payment_operations WHERE checkout_id = ?", poisoned)).isZero();

        // mistakes get problem+json and change nothing
        HttpApi.Response unknown = operator("POST", "/api/v1/operator/dead-letters/nope/" + poisoned + "/retry", null);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.header("Content-Type")).startsWith("application/problem+json");
        HttpApi.Response notParked = operator("POST", "/api/v1/operator/dead-letters/payments/" + healthy.get(0)
                + "/retry", null);
        assertThat(notParked.status()).isEqualTo(404);
        assertThat(notParked.json().get("type").asText()).endsWith("nothing-parked");
        HttpApi.Response noReason = operator("DELETE", "/api/v1/operator/dead-letters/payments/" + poisoned, "{}");
        assertThat(noReason.status()).isEqualTo(400);
        HttpApi.Response notOperator = api.send("POST", "/api/v1/operator/dead-letters/payments/" + poisoned
                + "/retry", HttpApi.DEMO_KEY, Map.of(), null);
        assertThat(notOperator.status()).isEqualTo(403);
        HttpApi.Response badLimit = operator("GET", "/api/v1/operator/dead-letters?limit=0", null);
        assertThat(badLimit.status()).isEqualTo(400);

        // retried while the cause is still there: it stays parked, with the cause
        HttpApi.Response again = operator("POST", "/api/v1/operator/dead-letters/payments/" + poisoned + "/retry", null);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json().get("handled").asBoolean()).isFalse();
        assertThat(again.json().get("stillParked").get(0).get("cause").asText()).contains("provider_reference");

        // the provider fixes its bug; the operator retries; the checkout completes
        faults.oversizedReferences(false);
        HttpApi.Response retried = operator("POST", "/api/v1/operator/dead-letters/payments/" + poisoned + "/retry",
                null);
        assertThat(retried.status()).as(retried.body()).isEqualTo(200);
        assertThat(retried.json().get("handled").asBoolean()).isTrue();
        awaitState(poisoned, "completed");
        assertThat(operator("GET", "/api/v1/operator/dead-letters?checkoutId=" + poisoned, null).json()
                .get("deadLetters").size()).isZero();
        assertThat(api.get("/api/v1/checkouts/" + poisoned).json().has("parked")).isFalse();
        assertThat(count("SELECT count(*) FROM simulator_authorizations WHERE operation_id = ?",
                poisoned + "/authorize-payment")).isEqualTo(1);
        assertInvariantsHold();
    }

    private String start(String sku, String token) {
        HttpApi.Response r = api.startCheckout("poison-" + UUID.randomUUID(), checkoutBody(sku, 1, 2500, token));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("checkoutId").asText();
    }

    private HttpApi.Response operator(String method, String path, String body) {
        return api.send(method, path, HttpApi.OPERATOR_KEY, Map.of(), body);
    }

    private JsonNode awaitState(String id, String state) {
        return api.awaitState(id, state, Duration.ofSeconds(45));
    }
}
