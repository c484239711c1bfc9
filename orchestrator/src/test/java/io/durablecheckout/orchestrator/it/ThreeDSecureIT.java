package io.durablecheckout.orchestrator.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A payment that needs the customer (3-D Secure) over real HTTP and PostgreSQL, the provider simulator's ledger the
 * witness of money taken: {@code tok_3ds} answers REQUIRES_ACTION, its customer authenticates 5 s later and the
 * simulator's signed webhook says AUTHORIZED; {@code tok_3ds_abandoned}'s customer never does, and the checkout's
 * customer-action timeout (15 s in the shared test configuration) cancels it.
 */
class ThreeDSecureIT extends IntegrationTestBase {

    static final long STOCK = 100;

    @Autowired
    InventoryAdmin inventory;

    private static boolean warm;

    /**
     * One ordinary checkout first: on a cold, loaded machine the first provider call can outlast the client's 1 s
     * timeout, and an authorization whose answer is lost is reconciled by lookups (which answer PENDING while the
     * customer has not acted), not shown to the customer: not what these tests are about.
     */
    @BeforeEach
    void warmUp() {
        if (!warm) {
            api.awaitState(start(freshSku(), "tok_approve"), "completed", Duration.ofSeconds(60));
            warm = true;
        }
    }

    @AfterEach
    void invariants() {
        assertInvariantsHold();
    }

    @Test
    void aPaymentThatNeedsTheCustomerWaitsVisiblyThenCompletesOnTheProvidersNotificationWithOneCapture() {
        String id = start(freshSku(), "tok_3ds");

        JsonNode waiting = firstSettledView(id);

        assertThat(waiting.get("terminal").asBoolean()).isFalse();
        JsonNode next = waiting.get("customerAction").get("nextAction");
        assertThat(next.get("type").asText()).isEqualTo("redirect_to_url");
        assertThat(next.get("redirect_to_url").get("url").asText())
                .startsWith("http://127.0.0.1:").endsWith("/simulator/provider/3ds/" + id + "/authorize-payment");
        assertThat(waiting.get("customerAction").get("providerReference").asText()).startsWith("SIM-");
        assertThat(captures(id)).isZero();

        JsonNode done = api.awaitState(id, "completed", Duration.ofSeconds(30));

        assertThat(done.path("customerAction").isNull() || done.path("customerAction").isMissingNode())
                .as("nothing left for the customer to do").isTrue();
        assertThat(types(id)).containsSubsequence("PaymentAuthorizationRequestedEvent", "CustomerActionRequiredEvent",
                "PaymentAuthorizedEvent", "CheckoutConfirmedEvent", "PaymentCapturedEvent", "CheckoutCompletedEvent");
        assertThat(captures(id)).isEqualTo(1);
        // asked once: the customer, not a lookup or a second authorization, decided it
        assertThat(count("SELECT count(*) FROM simulator_calls WHERE action = 'AUTHORIZE' AND operation_id = ?",
                id + "/authorize-payment")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM simulator_calls WHERE action = 'LOOKUP' AND operation_id = ?",
                id + "/authorize-payment")).isZero();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(jdbc.queryForObject(
                "SELECT status FROM payment_operations WHERE operation_id = ?", String.class,
                id + "/authorize-payment")).isEqualTo("AUTHORIZED"));
    }

    @Test
    void aPaymentNobodyAuthenticatesIsCancelledByTheDeadlineVoidedAndItsStockReleased() {
        String sku = freshSku();
        String id = start(sku, "tok_3ds_abandoned");
        assertThat(firstSettledView(id).get("customerAction").get("nextAction").get("type").asText())
                .isEqualTo("redirect_to_url");

        JsonNode view = api.awaitState(id, "cancelled", Duration.ofSeconds(45));

        assertThat(view.get("reason").asText()).isEqualTo("customer_action_timed_out");
        assertThat(types(id)).containsSubsequence("CustomerActionRequiredEvent", "PaymentVoidedEvent",
                "StockReleasedEvent", "CheckoutCancelledEvent").doesNotContain("PaymentCaptureRequestedEvent",
                "PaymentAuthorizedEvent");
        assertThat(count("SELECT count(*) FROM simulator_authorizations WHERE operation_id = ? AND voided",
                id + "/authorize-payment")).isEqualTo(1);
        assertThat(captures(id)).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT reserved FROM stock WHERE tenant_id = 'demo' "
                + "AND sku = ?", sku) == 0);
        assertThat(count("SELECT available FROM stock WHERE tenant_id = 'demo' AND sku = ?", sku)).isEqualTo(STOCK);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** The view once the authorization has an answer; asserted to be the customer's turn. */
    private JsonNode firstSettledView(String id) {
        HttpApi.Response[] last = new HttpApi.Response[1];
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> {
            last[0] = api.get("/api/v1/checkouts/" + id);
            return last[0].status() == 200 && java.util.Set.of("customer_action_required", "reconciliation_pending",
                    "payment_unknown", "manual_review", "completed", "cancelled", "confirmed", "capture_pending")
                    .contains(last[0].json().path("state").asText());
        });
        assertThat(last[0].json().path("state").asText()).as(last[0].body()).isEqualTo("customer_action_required");
        return last[0].json();
    }

    private String start(String sku, String token) {
        HttpApi.Response r = api.startCheckout("it-" + UUID.randomUUID(), HttpApi.checkoutBody(sku, 1, 2500, token));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("checkoutId").asText();
    }

    private String freshSku() {
        String sku = "3DS-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, STOCK);
        return sku;
    }

    private long captures(String id) {
        return count("SELECT coalesce(sum(captures), 0) FROM simulator_authorizations WHERE operation_id = ?",
                id + "/authorize-payment");
    }

    private List<String> types(String id) {
        List<String> types = new ArrayList<>();
        api.get("/api/v1/checkouts/" + id + "/history").json().forEach(e -> types.add(e.get("type").asText()));
        return types;
    }
}
