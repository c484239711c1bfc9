package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.HeldWorkers;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import io.durablecheckout.orchestrator.it.support.StandardWebhooksSigner;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.activities.payments.WebhookSecret;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.durablecheckout.orchestrator.it.support.HttpApi.checkoutBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Every payment provider behaviour, driven through the HTTP API, asserting final states and side effects; the
 * invariant checker runs after each scenario.
 */
class WorkflowScenariosIT extends IntegrationTestBase {

    static final long STOCK = 100;

    @Autowired
    InventoryAdmin inventory;

    @Autowired
    io.durablecheckout.orchestrator.service.CheckoutIds checkoutIds;

    @Autowired
    WebhookSecret webhookSecret;

    @Autowired
    HeldWorkers held;

    @AfterEach
    void invariants() {
        assertInvariantsHold();
    }

    @Test
    void aDeclineReleasesTheStock() {
        String sku = freshSku();
        String id = start(sku, 3, "tok_decline");

        JsonNode view = awaitState(id, "cancelled");

        assertThat(view.get("reason").asText()).isEqualTo("payment_declined");
        assertThat(stock(sku, "available")).isEqualTo(STOCK);
        assertThat(stock(sku, "reserved")).isZero();
        assertThat(types(id)).containsSubsequence("StockReservedEvent", "PaymentDeclinedEvent",
                "StockReleaseRequestedEvent", "StockReleasedEvent", "CheckoutCancelledEvent");
        assertThat(count("SELECT count(*) FROM inventory_operations WHERE operation_id = ? AND status = 'RELEASED'",
                id + "/release-stock")).isEqualTo(1);
    }

    @Test
    void anUnknownPaymentThatTheProviderAuthorizedIsChargedOnceAndCompletes() {
        String sku = freshSku();
        String id = start(sku, 1, "tok_timeout_then_approve");

        awaitState(id, "completed");

        List<String> types = types(id);
        assertThat(types).containsSubsequence("PaymentAuthorizationRequestedEvent", "PaymentOutcomeUnknownEvent",
                "PaymentAuthorizedEvent", "CheckoutCompletedEvent");
        assertThat(types).doesNotContain("PaymentDeclinedEvent");
        assertThat(count("SELECT count(*) FROM simulator_authorizations WHERE operation_id LIKE ?", id + "/%")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? "
                + "AND payloadtype LIKE '%.PaymentAuthorizedEvent'", id)).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> stock(sku, "sold") == 1);
    }

    @Test
    void anUnknownPaymentThatTheProviderDeclinedIsCompensated() {
        String sku = freshSku();
        String id = start(sku, 2, "tok_timeout_then_decline");

        awaitState(id, "cancelled");

        assertThat(types(id)).containsSubsequence("PaymentOutcomeUnknownEvent", "PaymentDeclinedEvent", "StockReleasedEvent");
        assertThat(stock(sku, "available")).isEqualTo(STOCK);
    }

    @Test
    void aPaymentThatStaysUnknownGoesToManualReviewAndAnOperatorSResolutionIsCheckedByTheCapture() {
        String sku = freshSku();
        String id = start(sku, 1, "tok_unknown");

        JsonNode review = awaitState(id, "manual_review");
        assertThat(review.get("manualReview").get("blockedStep").asText()).isEqualTo("reconcile-payment");
        assertThat(review.get("waiting").get("reason").asText()).contains("operator");
        assertThat(types(id).stream().filter("PaymentReconciliationRequestedEvent"::equals)).hasSize(3);
        long version = review.get("version").asLong();

        // a tenant key may not act as operator; an action without If-Match or on a stale version changes nothing
        assertThat(operator("resolve", id, HttpApi.DEMO_KEY, Long.toString(version), resolveBody()).status()).isEqualTo(403);
        assertThat(operator("resolve", id, HttpApi.OPERATOR_KEY, null, resolveBody()).status()).isEqualTo(428);
        assertThat(operator("resolve", id, HttpApi.OPERATOR_KEY, "\"" + (version - 1) + "\"", resolveBody()).status())
                .isEqualTo(412);
        assertThat(api.get("/api/v1/checkouts/" + id).json().get("version").asLong()).isEqualTo(version);

        HttpApi.Response resolved = operator("resolve", id, HttpApi.OPERATOR_KEY, "\"" + version + "\"", resolveBody());
        assertThat(resolved.status()).as(resolved.body()).isEqualTo(202);

        // the operator's word moves the checkout on; the capture then asks the provider, which never authorized
        // this one (the simulator's tok_unknown stays undecided): it refuses, so no money is taken on a mistaken
        // resolution and the checkout is undone (void, stock released)
        JsonNode done = awaitState(id, "cancelled");
        assertThat(done.get("reason").asText()).isEqualTo("capture_declined");
        assertThat(types(id)).containsSubsequence("ManualReviewResolvedEvent", "PaymentAuthorizedEvent",
                "PaymentCaptureRequestedEvent", "PaymentCaptureFailedEvent", "StockReleasedEvent");
        assertThat(count("SELECT coalesce(sum(captures), 0) FROM simulator_authorizations WHERE operation_id = ?",
                id + "/authorize-payment")).isZero();
        JsonNode resolution = history(id).stream()
                .filter(e -> e.get("type").asText().equals("ManualReviewResolvedEvent")).findFirst().orElseThrow();
        assertThat(resolution.get("metadata").get("actor").asText()).isEqualTo("operator:operator");
        assertThat(resolution.get("metadata").get("reason").asText()).isEqualTo("provider dashboard shows it captured");
        assertThat(resolution.get("metadata").get("actedAt").asText()).isNotBlank();
        assertThat(count("SELECT count(*) FROM simulator_authorizations WHERE operation_id LIKE ?", id + "/%")).isEqualTo(1);
    }

    @Test
    void aSlowProviderStillCompletes() {
        String id = start(freshSku(), 1, "tok_slow");
        awaitState(id, "completed");
    }

    @Test
    void aProviderThatIsDownIsRetriedUnderTheSameOperationId() {
        String id = start(freshSku(), 1, "tok_provider_down");

        awaitState(id, "completed");

        assertThat(types(id)).containsSubsequence("ActivityRetryScheduledEvent", "ActivityRetryScheduledEvent",
                "PaymentAuthorizedEvent");
        assertThat(count("SELECT refusals FROM simulator_authorizations WHERE operation_id = ?", id + "/authorize-payment"))
                .isEqualTo(2);
    }

    @Test
    void aWebhookDeliveredTwiceIsAppliedOnce() {
        String id = start(freshSku(), 1, "tok_timeout_then_approve");

        awaitState(id, "completed");
        await().atMost(Duration.ofSeconds(10)).until(() -> count(
                "SELECT coalesce(sum(deliveries), 0) FROM provider_notifications WHERE checkout_id = ?", id) == 2);

        assertThat(count("SELECT count(*) FROM provider_notifications WHERE checkout_id = ?", id)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? "
                + "AND payloadtype LIKE '%.PaymentAuthorizedEvent'", id)).isEqualTo(1);
    }

    @Test
    void aNotificationThatContradictsTheRecordedOutcomeIsNotAppliedButPutBeforeAnOperator() throws Exception {
        String id = start(freshSku(), 1, "tok_approve");
        awaitState(id, "completed");

        String body = "{\"eventId\":\"evt-" + UUID.randomUUID() + "\",\"operationId\":\"" + id
                + "/authorize-payment\",\"status\":\"DECLINED\",\"reference\":\"x\",\"tenantId\":\"demo\","
                + "\"amountMinor\":2500,\"currency\":\"EUR\",\"occurredAt\":\"2026-01-01T00:00:00Z\"}";
        long now = System.currentTimeMillis() / 1000;
        assertThat(webhook(body, now, "v1,bad-signature")).isEqualTo(401);
        assertThat(webhook(body, now, StandardWebhooksSigner.signature(webhookSecret.value(),
                StandardWebhooksSigner.idOf(body), now, body))).isEqualTo(202);

        // the recorded outcome stands; the dispute keeps the checkout in the operators' queue
        JsonNode view = await().atMost(Duration.ofSeconds(10)).until(() -> api.get("/api/v1/checkouts/" + id).json(),
                v -> v.has("manualReview"));
        assertThat(view.get("state").asText()).isEqualTo("completed");
        assertThat(view.get("terminal").asBoolean()).isFalse();
        assertThat(view.get("manualReview").get("reason").asText()).contains("contradicts");
        assertThat(types(id)).contains("PaymentOutcomeDisputedEvent").doesNotContain("PaymentDeclinedEvent");
        // the list comes from the read model, which follows once a second (a read by id folds what it has not reached)
        await().atMost(Duration.ofSeconds(10)).until(() -> api.get("/api/v1/checkouts?waiting=true&limit=500").json()
                .findValuesAsText("checkoutId").contains(id));

        HttpApi.Response resolved = operator("resolve", id, HttpApi.OPERATOR_KEY, "\"" + view.get("version").asLong() + "\"",
                "{\"resolution\":\"authorized\",\"providerReference\":\"x\",\"reason\":\"capture confirmed by the provider\"}");
        assertThat(resolved.status()).as(resolved.body()).isEqualTo(202);
        JsonNode after = await().atMost(Duration.ofSeconds(10)).until(() -> api.get("/api/v1/checkouts/" + id).json(),
                v -> v.get("terminal").asBoolean());
        assertThat(after.get("state").asText()).isEqualTo("completed");
    }

    @Test
    void aCancelAfterAuthorizationRefundsReleasesAndSendsACancellationNotice() {
        String sku = freshSku();
        String id = start(sku, 2, "tok_approve");
        awaitState(id, "completed");

        HttpApi.Response cancel = api.send("POST", "/api/v1/checkouts/" + id + "/cancel", HttpApi.DEMO_KEY, Map.of(),
                "{\"reason\":\"changed my mind\"}");
        assertThat(cancel.status()).isEqualTo(202);

        JsonNode view = awaitState(id, "cancelled");
        assertThat(view.get("reason").asText()).isEqualTo("customer_request");
        assertThat(types(id)).containsSubsequence("CheckoutCompletedEvent", "CheckoutCancellationRequestedEvent",
                "PaymentRefundRequestedEvent", "PaymentRefundedEvent", "StockReleasedEvent",
                "CancellationNoticeRequestedEvent", "CancellationNoticeSentEvent", "CheckoutCancelledEvent");
        assertThat(count("SELECT count(*) FROM simulator_authorizations WHERE operation_id = ? AND refunded",
                id + "/authorize-payment")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM outbound_messages WHERE operation_id = ?", id + "/send-cancellation-notice"))
                .isEqualTo(1);
        assertThat(stock(sku, "available")).isEqualTo(STOCK);
        // who asked and why: on the events the cancellation caused and in the audit log (the demo key's id)
        JsonNode requested = eventOf(id, "CheckoutCancellationRequestedEvent");
        assertThat(requested.get("metadata").get("actor").asText()).startsWith("tenant:demo/");
        assertThat(requested.get("metadata").get("reason").asText()).isEqualTo("changed my mind");
        assertThat(count("SELECT count(*) FROM audit_log WHERE action = 'checkout.CustomerCancellation' AND target = ? "
                + "AND actor LIKE 'demo/%' AND reason = 'changed my mind'", "checkout:" + id)).isEqualTo(1);
    }

    private JsonNode eventOf(String id, String type) {
        for (JsonNode e : api.get("/api/v1/checkouts/" + id + "/history").json()) {
            if (e.get("type").asText().equals(type)) return e;
        }
        throw new AssertionError("no " + type + " in " + id);
    }

    /**
     * The cancel lands while the reservation is in flight: the inventory worker is held after reading its intent,
     * the cancel is recorded, then the worker goes on. The reservation concludes and is released; no payment is ever
     * asked for.
     */
    @Test
    void aCancelBeforeTheStockIsReservedEndsWithNothingHeld() throws Exception {
        String sku = freshSku();
        String key = "it-" + UUID.randomUUID();
        String id = checkoutIds.idFor(new TenantId("demo"), key).value();
        try (HeldWorkers.Hold hold = held.hold(id, Step.RESERVE_STOCK)) {
            HttpApi.Response r = api.startCheckout(key, checkoutBody(sku, 1, 2500, "tok_approve"));
            assertThat(r.status()).as(r.body()).isEqualTo(202);
            hold.awaitReached();
            assertThat(stock(sku, "reserved")).isZero();
            assertThat(api.send("POST", "/api/v1/checkouts/" + id + "/cancel", HttpApi.DEMO_KEY, Map.of(), null).status())
                    .isEqualTo(202);
            await().atMost(Duration.ofSeconds(10)).until(() -> types(id).contains("CheckoutCancellationRequestedEvent"));
        }

        JsonNode view = awaitState(id, "cancelled");

        assertThat(view.get("reason").asText()).isEqualTo("customer_request");
        assertThat(types(id)).containsSubsequence("StockReservationRequestedEvent", "CheckoutCancellationRequestedEvent",
                        "StockReservedEvent", "StockReleaseRequestedEvent", "StockReleasedEvent", "CheckoutCancelledEvent")
                .doesNotContain("PaymentAuthorizationRequestedEvent");
        assertThat(stock(sku, "available")).isEqualTo(STOCK);
        assertThat(stock(sku, "reserved")).isZero();
        assertThat(count("SELECT count(*) FROM simulator_calls WHERE operation_id LIKE ?", id + "/%")).isZero();
    }

    /**
     * The cancel lands while the authorization is in flight: the payments worker is held, the cancel recorded, then
     * the provider authorizes. The authorization is voided under its own operation id, the stock released.
     */
    @Test
    void aCancelDuringTheAuthorizationVoidsItOnceItConcludes() throws Exception {
        String sku = freshSku();
        String key = "it-" + UUID.randomUUID();
        String id = checkoutIds.idFor(new TenantId("demo"), key).value();
        try (HeldWorkers.Hold hold = held.hold(id, Step.AUTHORIZE_PAYMENT)) {
            HttpApi.Response r = api.startCheckout(key, checkoutBody(sku, 1, 2500, "tok_approve"));
            assertThat(r.status()).as(r.body()).isEqualTo(202);
            hold.awaitReached();
            assertThat(count("SELECT count(*) FROM simulator_calls WHERE operation_id = ?", id + "/authorize-payment"))
                    .isZero();
            assertThat(api.send("POST", "/api/v1/checkouts/" + id + "/cancel", HttpApi.DEMO_KEY, Map.of(), null).status())
                    .isEqualTo(202);
            await().atMost(Duration.ofSeconds(10)).until(() -> types(id).contains("CheckoutCancellationRequestedEvent"));
        }

        awaitState(id, "cancelled");

        assertThat(types(id)).containsSubsequence("PaymentAuthorizationRequestedEvent",
                        "CheckoutCancellationRequestedEvent", "PaymentAuthorizedEvent", "PaymentVoidRequestedEvent",
                        "PaymentVoidedEvent", "StockReleasedEvent", "CheckoutCancelledEvent")
                .doesNotContain("ReceiptRequestedEvent");
        assertThat(count("SELECT count(*) FROM simulator_authorizations WHERE operation_id = ? AND voided",
                id + "/authorize-payment")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM simulator_calls WHERE action = 'VOID' AND idempotency_key = ?",
                id + "/void-payment")).isEqualTo(1);
        assertThat(stock(sku, "available")).isEqualTo(STOCK);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    String start(String sku, int quantity, String token) {
        HttpApi.Response r = api.startCheckout("it-" + UUID.randomUUID(), checkoutBody(sku, quantity, 2500, token));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("checkoutId").asText();
    }

    String freshSku() {
        String sku = "S-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, STOCK);
        return sku;
    }

    long stock(String sku, String column) {
        return count("SELECT " + column + " FROM stock WHERE tenant_id = 'demo' AND sku = ?", sku);
    }

    JsonNode awaitState(String id, String state) {
        return api.awaitState(id, state, Duration.ofSeconds(30));
    }

    List<JsonNode> history(String id) {
        List<JsonNode> events = new ArrayList<>();
        api.get("/api/v1/checkouts/" + id + "/history").json().forEach(events::add);
        return events;
    }

    List<String> types(String id) {
        return history(id).stream().map(e -> e.get("type").asText()).toList();
    }

    HttpApi.Response operator(String action, String id, String key, String ifMatch, String body) {
        Map<String, String> headers = ifMatch == null ? Map.of() : Map.of("If-Match", ifMatch);
        return api.send("POST", "/api/v1/operator/checkouts/" + id + "/" + action, key, headers, body);
    }

    static String resolveBody() {
        return "{\"resolution\":\"authorized\",\"providerReference\":\"SIM-MANUAL-1\","
                + "\"reason\":\"provider dashboard shows it captured\"}";
    }

    int webhook(String body, long timestamp, String signature) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://localhost:" + port + "/api/v1/payment-callbacks"))
                .header("Content-Type", "application/json")
                .header("webhook-id", StandardWebhooksSigner.idOf(body))
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", signature)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        return r.statusCode();
    }
}
