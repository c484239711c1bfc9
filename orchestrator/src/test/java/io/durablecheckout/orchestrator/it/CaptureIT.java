package io.durablecheckout.orchestrator.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Capture over real HTTP and PostgreSQL, with the provider simulator's own ledger as the witness of money taken
 * (simulator_authorizations.captures counts captures made, capture_requests every capture request it received): on
 * confirmation and deferred, a timeout that did or did not capture, a declined capture, a lapsed hold, a cancel before
 * and after the capture. The shared test configuration sets the hold's validity to 20 s.
 */
class CaptureIT extends IntegrationTestBase {

    static final long STOCK = 100;

    @Autowired
    InventoryAdmin inventory;

    @AfterEach
    void invariants() {
        assertInvariantsHold();
    }

    @Test
    void capturedOnConfirmationTheMoneyIsTakenOnceBeforeTheReceiptWhichSaysSo() {
        String id = start(freshSku(), "tok_approve", null);

        JsonNode view = awaitState(id, "completed");

        assertThat(types(id)).containsSubsequence("CheckoutConfirmedEvent", "PaymentCaptureRequestedEvent",
                "PaymentCapturedEvent", "ReceiptRequestedEvent", "ReceiptSentEvent", "CheckoutCompletedEvent");
        assertThat(view.get("captureMode").asText()).isEqualTo("on_confirmation");
        assertThat(view.get("captured").get("minor").asLong()).isEqualTo(2500);
        assertThat(captures(id)).isEqualTo(1);
        assertThat(capturedMinor(id)).isEqualTo(2500);
        assertThat(jdbc.queryForObject("SELECT body FROM outbound_messages WHERE operation_id = ?", String.class,
                id + "/send-receipt")).contains("was charged 25.00 EUR on");
    }

    @Test
    void aDeferredCaptureWaitsForTheTenantThenTakesWhatItAsksForOnce() {
        String sku = freshSku();
        String id = start(sku, "tok_approve", "deferred");

        JsonNode waiting = awaitState(id, "awaiting_capture");
        assertThat(waiting.get("terminal").asBoolean()).isFalse();
        assertThat(waiting.get("waiting").get("nextDeadline").asText()).isEqualTo(waiting.get("holdExpiresAt").asText());
        assertThat(captures(id)).isZero();
        assertThat(jdbc.queryForObject("SELECT body FROM outbound_messages WHERE operation_id = ?", String.class,
                id + "/send-receipt")).contains("It is charged when your order ships");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                api.get("/api/v1/checkouts?waiting=true&state=awaiting_capture").body()).contains(id));

        HttpApi.Response first = capture(id, "{\"amount\":{\"minor\":2000,\"currency\":\"EUR\"}}");
        assertThat(first.status()).as(first.body()).isEqualTo(202);
        // the same call again (a client's retry) changes nothing; another amount is refused and changes nothing
        assertThat(capture(id, "{\"amount\":{\"minor\":2000,\"currency\":\"EUR\"}}").status()).isEqualTo(202);
        HttpApi.Response other = capture(id, "{\"amount\":{\"minor\":2500,\"currency\":\"EUR\"}}");
        assertThat(other.status()).isEqualTo(409);
        assertThat(other.header("Content-Type")).startsWith("application/problem+json");

        JsonNode done = awaitState(id, "completed");
        assertThat(done.get("captured").get("minor").asLong()).isEqualTo(2000);
        assertThat(captures(id)).isEqualTo(1);
        assertThat(capturedMinor(id)).isEqualTo(2000);
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? "
                + "AND payloadtype LIKE '%.PaymentCaptureRequestedEvent'", id)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM audit_log WHERE action = 'checkout.Capture' AND target = ?",
                "checkout:" + id)).isEqualTo(2); // the accepted calls; the refused one changed nothing
    }

    @Test
    void aCaptureRequestThatIsNotACaptureIsRefusedAndChangesNothing() {
        String onConfirmation = start(freshSku(), "tok_approve", null);
        awaitState(onConfirmation, "completed");
        HttpApi.Response notDeferred = capture(onConfirmation, null);
        assertThat(notDeferred.status()).isEqualTo(409);
        assertThat(notDeferred.body()).contains("captured on confirmation");

        String deferred = start(freshSku(), "tok_approve", "deferred");
        awaitState(deferred, "awaiting_capture");
        long version = api.get("/api/v1/checkouts/" + deferred).json().get("version").asLong();
        assertThat(capture(deferred, "{\"amount\":{\"minor\":2501,\"currency\":\"EUR\"}}").status()).isEqualTo(409);
        assertThat(capture(deferred, "{\"amount\":{\"minor\":\"ten\",\"currency\":\"EUR\"}}").status()).isEqualTo(400);
        assertThat(capture(deferred, "{\"amount\":{\"minor\":-5,\"currency\":\"EUR\"}}").status()).isEqualTo(400);
        assertThat(api.send("POST", "/api/v1/checkouts/co_nope/capture", HttpApi.DEMO_KEY, Map.of(), null).status())
                .isEqualTo(404);
        assertThat(api.get("/api/v1/checkouts/" + deferred).json().get("version").asLong()).isEqualTo(version);
        assertThat(captures(deferred)).isZero();
        assertThat(api.startCheckout("it-" + UUID.randomUUID(), body(freshSku(), "tok_approve", "later")).status())
                .isEqualTo(400);
    }

    @Test
    void aCaptureThatTimedOutButHappenedIsAnsweredFromTheProviderSRecordNotRepeated() {
        String id = start(freshSku(), "tok_capture_timeout_done", null);

        awaitState(id, "completed");

        assertThat(types(id)).containsSubsequence("PaymentCaptureRequestedEvent", "ActivityRetryScheduledEvent",
                "PaymentCaptureRequestedEvent", "PaymentCapturedEvent", "CheckoutCompletedEvent");
        assertThat(captures(id)).isEqualTo(1);
        assertThat(captureRequests(id)).isGreaterThanOrEqualTo(2);
        assertThat(count("SELECT count(DISTINCT idempotency_key) FROM simulator_calls WHERE action = 'CAPTURE' "
                + "AND operation_id LIKE ?", id + "/%")).isEqualTo(1);
    }

    @Test
    void aCaptureThatTimedOutAndDidNotHappenIsAskedAgainUnderTheSameOperationId() {
        String id = start(freshSku(), "tok_capture_timeout_lost", null);

        awaitState(id, "completed");

        assertThat(captures(id)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM simulator_calls WHERE action = 'CAPTURE' AND idempotency_key = ?",
                id + "/capture-payment")).isGreaterThanOrEqualTo(2);
        assertThat(count("SELECT count(*) FROM simulator_calls WHERE action = 'CAPTURE' AND operation_id LIKE ? "
                + "AND idempotency_key <> ?", id + "/%", id + "/capture-payment")).isZero();
    }

    @Test
    void aDeclinedCaptureVoidsReleasesTheStockAndSaysWhy() {
        String sku = freshSku();
        String id = start(sku, "tok_capture_declined", null);

        JsonNode view = awaitState(id, "cancelled");

        assertThat(view.get("reason").asText()).isEqualTo("capture_declined");
        assertThat(types(id)).containsSubsequence("PaymentCaptureFailedEvent", "PaymentVoidedEvent",
                "StockReleasedEvent", "CheckoutCancelledEvent").doesNotContain("ReceiptRequestedEvent");
        assertThat(captures(id)).isZero();
        assertThat(voided(id)).isTrue();
        assertThat(stock(sku, "available")).isEqualTo(STOCK);
    }

    @Test
    void aHoldThatLapsesUncapturedCancelsTheCheckoutWithAVoidAndANotice() {
        String sku = freshSku();
        String id = start(sku, "tok_approve", "deferred");
        awaitState(id, "awaiting_capture");

        JsonNode view = api.awaitState(id, "cancelled", Duration.ofSeconds(60));

        assertThat(view.get("reason").asText()).isEqualTo("hold_expired");
        assertThat(types(id)).containsSubsequence("CaptureAwaitedEvent", "CheckoutCancellationRequestedEvent",
                "PaymentVoidedEvent", "StockReleasedEvent", "CancellationNoticeSentEvent", "CheckoutCancelledEvent");
        assertThat(captures(id)).isZero();
        assertThat(voided(id)).isTrue();
        assertThat(stock(sku, "available")).isEqualTo(STOCK);
        // too late: the provider's hold is gone, and so is the checkout
        assertThat(capture(id, null).status()).isEqualTo(409);
        assertThat(captures(id)).isZero();
    }

    @Test
    void aCancelBeforeTheCaptureVoidsAndAfterItRefundsWhatWasTaken() {
        String before = start(freshSku(), "tok_approve", "deferred");
        awaitState(before, "awaiting_capture");
        assertThat(cancel(before).status()).isEqualTo(202);
        awaitState(before, "cancelled");
        assertThat(voided(before)).isTrue();
        assertThat(captures(before)).isZero();
        assertThat(types(before)).doesNotContain("PaymentRefundRequestedEvent");

        String after = start(freshSku(), "tok_approve", "deferred");
        awaitState(after, "awaiting_capture");
        assertThat(capture(after, "{\"amount\":{\"minor\":1500,\"currency\":\"EUR\"}}").status()).isEqualTo(202);
        awaitState(after, "completed");
        assertThat(cancel(after).status()).isEqualTo(202);
        awaitState(after, "cancelled");
        assertThat(count("SELECT count(*) FROM simulator_authorizations WHERE operation_id = ? AND refunded",
                after + "/authorize-payment")).isEqualTo(1);
        assertThat(voided(after)).isFalse();
        JsonNode refund = history(after).stream().filter(e -> e.get("type").asText()
                .equals("PaymentRefundRequestedEvent")).findFirst().orElseThrow();
        assertThat(refund.get("payload").get("amount").get("minor").asLong()).isEqualTo(1500);
        assertThat(jdbc.queryForObject("SELECT body FROM outbound_messages WHERE operation_id = ?", String.class,
                after + "/send-cancellation-notice")).contains("Refund of 15.00 EUR").contains("returns to your");
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private String start(String sku, String token, String capture) {
        HttpApi.Response r = api.startCheckout("it-" + UUID.randomUUID(), body(sku, token, capture));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("checkoutId").asText();
    }

    private static String body(String sku, String token, String capture) {
        String body = HttpApi.checkoutBody(sku, 1, 2500, token);
        return capture == null ? body : body.substring(0, body.length() - 1) + ",\"capture\":\"" + capture + "\"}";
    }

    private HttpApi.Response capture(String id, String body) {
        return api.send("POST", "/api/v1/checkouts/" + id + "/capture", HttpApi.DEMO_KEY,
                Map.of("Idempotency-Key", "ship-" + id), body);
    }

    private HttpApi.Response cancel(String id) {
        return api.send("POST", "/api/v1/checkouts/" + id + "/cancel", HttpApi.DEMO_KEY, Map.of(),
                "{\"reason\":\"changed my mind\"}");
    }

    private String freshSku() {
        String sku = "C-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, STOCK);
        return sku;
    }

    private long stock(String sku, String column) {
        await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT reserved FROM stock WHERE tenant_id = 'demo' "
                + "AND sku = ?", sku) == 0);
        return count("SELECT " + column + " FROM stock WHERE tenant_id = 'demo' AND sku = ?", sku);
    }

    private long captures(String id) {
        return count("SELECT coalesce(sum(captures), 0) FROM simulator_authorizations WHERE operation_id = ?",
                id + "/authorize-payment");
    }

    private long captureRequests(String id) {
        return count("SELECT coalesce(sum(capture_requests), 0) FROM simulator_authorizations WHERE operation_id = ?",
                id + "/authorize-payment");
    }

    private long capturedMinor(String id) {
        return count("SELECT coalesce(sum(captured_minor), 0) FROM simulator_authorizations WHERE operation_id = ?",
                id + "/authorize-payment");
    }

    private boolean voided(String id) {
        return count("SELECT count(*) FROM simulator_authorizations WHERE operation_id = ? AND voided",
                id + "/authorize-payment") == 1;
    }

    private JsonNode awaitState(String id, String state) {
        return api.awaitState(id, state, Duration.ofSeconds(30));
    }

    private List<JsonNode> history(String id) {
        List<JsonNode> events = new ArrayList<>();
        api.get("/api/v1/checkouts/" + id + "/history").json().forEach(events::add);
        return events;
    }

    private List<String> types(String id) {
        return history(id).stream().map(e -> e.get("type").asText()).toList();
    }
}
