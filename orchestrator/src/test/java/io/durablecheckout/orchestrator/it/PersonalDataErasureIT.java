package io.durablecheckout.orchestrator.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.api.values.TenantId;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 10, acceptance 5 (first half): personal data is stored only encrypted under the checkout's key; erasure
 * deletes the key; afterwards the history, the checkout view and the receipts' records show the fields as erased,
 * and the rest of the workflow (a cancellation with refund, release and a notice) still runs.
 */
class PersonalDataErasureIT extends IntegrationTestBase {

    @Autowired
    InventoryAdmin inventory;

    @Test
    void afterErasureTheHistoryShowsTheFieldsErasedAndTheWorkflowStillRuns() {
        String email = "erase-me-" + UUID.randomUUID().toString().substring(0, 6) + "@example.org";
        String sku = "PD-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, 5);
        HttpApi.Response created = api.startCheckout("pd-" + UUID.randomUUID(),
                HttpApi.checkoutBody(sku, 1, 1234, "tok_approve").replace("a@example.com", email));
        assertThat(created.status()).as(created.body()).isEqualTo(202);
        String id = created.json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> "completed".equals(view(id).path("state").asText()));

        // nothing readable in the event store; readable through the API while the key exists
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? "
                + "AND (convert_from(payload, 'UTF8') LIKE ? OR convert_from(payload, 'UTF8') LIKE '%tok_approve%')",
                id, "%" + email + "%")).isZero();
        assertThat(count("SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND view::text LIKE ?",
                id, "%" + email + "%")).isZero();
        assertThat(view(id).get("customerEmail").asText()).isEqualTo(email);
        assertThat(api.get("/api/v1/checkouts/" + id + "/history").body()).contains(email).contains("tok_approve");

        // only operators with the repair role erase, with a reason
        assertThat(erase(id, HttpApi.DEMO_KEY, "{\"reason\":\"customer request\"}").status()).isEqualTo(403);
        assertThat(erase(id, HttpApi.OPERATOR_KEY, "{}").status()).isEqualTo(400);
        HttpApi.Response erased = erase(id, HttpApi.OPERATOR_KEY, "{\"reason\":\"GDPR art. 17 request #42\"}");
        assertThat(erased.status()).as(erased.body()).isEqualTo(200);
        assertThat(count("SELECT count(*) FROM personal_data_keys WHERE checkout_id = ? AND data_key IS NULL", id))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM audit_log WHERE target = ? AND action = 'checkout.erase-personal-data' "
                + "AND reason = 'GDPR art. 17 request #42'", "checkout:" + id)).isEqualTo(1);

        String history = api.get("/api/v1/checkouts/" + id + "/history").body();
        assertThat(history).doesNotContain(email).doesNotContain("tok_approve").contains("[erased]")
                .contains("CheckoutCompletedEvent");
        assertThat(view(id).get("customerEmail").asText()).isEqualTo("[erased]");
        assertThat(count("SELECT count(*) FROM outbound_messages WHERE operation_id LIKE ? AND recipient <> '[erased]'",
                id + "/%")).isZero();
        assertThat(count("SELECT count(*) FROM receipt_operations WHERE checkout_id = ? AND recipient <> '[erased]'", id))
                .isZero();

        // everything else still works: the customer cancels, the payment is refunded, the stock released, and the
        // cancellation notice is recorded as done without anyone to send it to
        HttpApi.Response cancel = api.send("POST", "/api/v1/checkouts/" + id + "/cancel", HttpApi.DEMO_KEY, Map.of(),
                "{\"reason\":\"changed my mind\"}");
        assertThat(cancel.status()).as(cancel.body()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> "cancelled".equals(view(id).path("state").asText()));
        assertThat(api.get("/api/v1/checkouts/" + id + "/history").body()).contains("PaymentRefundedEvent")
                .contains("CancellationNoticeSentEvent").doesNotContain(email);
        assertThat(count("SELECT count(*) FROM outbound_messages WHERE operation_id LIKE ?", id + "/%"))
                .as("the receipt was sent before erasure; no notice after").isEqualTo(1);
        assertThat(new String(api.get("/api/v1/checkouts/" + id).body().getBytes(StandardCharsets.UTF_8),
                StandardCharsets.UTF_8)).doesNotContain(email);
        // erasing again is harmless
        assertThat(erase(id, HttpApi.OPERATOR_KEY, "{\"reason\":\"again\"}").json().get("alreadyErased").asBoolean())
                .isTrue();
        assertInvariantsHold();
    }

    private JsonNode view(String id) {
        return api.get("/api/v1/checkouts/" + id).json();
    }

    private HttpApi.Response erase(String id, String key, String body) {
        return api.send("POST", "/api/v1/operator/checkouts/" + id + "/erase-personal-data", key, Map.of(), body);
    }
}
