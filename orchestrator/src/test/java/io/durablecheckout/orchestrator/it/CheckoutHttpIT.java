package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.activities.privacy.DataKeyStore;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.tenancy.ApiKeys;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import static io.durablecheckout.orchestrator.it.support.HttpApi.checkoutBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The product as a client uses it: over HTTP, on PostgreSQL, asserting on what is durably recorded. */
class CheckoutHttpIT extends IntegrationTestBase {

    @Autowired
    DataKeyStore keys;

    @Autowired
    io.durablecheckout.orchestrator.service.CheckoutIds checkoutIds;

    @Autowired
    InventoryAdmin inventory;

    @Autowired
    ApiKeys apiKeys;

    @Test
    void prometheusShowsEachProcessorsClaimsAndLagAndTheCheckoutCounters() {
        String id = api.startCheckout(key(), checkoutBody("SKU-0009", 1, 1999, "tok_approve")).json()
                .get("checkoutId").asText();
        awaitState(id, "completed");

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            String scrape = api.send("GET", "/actuator/prometheus", HttpApi.OPERATOR_KEY, Map.of(), null).body();
            for (String processor : List.of("CheckoutSagaProcessor", "checkout-summary", "inventory", "payments",
                    "receipts")) {
                assertThat(scrape).containsPattern("checkout_processor_segments_claimed\\{[^}]*processor=\""
                        + processor + "\"[^}]*} [1-9]");
                assertThat(scrape).containsPattern("checkout_processor_lag_events\\{[^}]*processor=\""
                        + processor + "\"[^}]*} ");
            }
            assertThat(scrape).containsPattern("checkout_finished_total\\{[^}]*state=\"completed\"[^}]*} [1-9]");
        });
    }

    @Test
    void aCheckoutRunsToCompletedAndItsHistoryListsEveryStepInOrder() {
        HttpApi.Response created = api.startCheckout(key(), checkoutBody("SKU-0007", 2, 3998, "tok_approve"));

        assertThat(created.status()).isEqualTo(202);
        String id = created.json().get("checkoutId").asText();
        assertThat(created.header("Location")).isEqualTo("/api/v1/checkouts/" + id);
        assertThat(created.json().get("state").asText()).isEqualTo("created");

        JsonNode view = awaitState(id, "completed");
        assertThat(view.get("terminal").asBoolean()).isTrue();
        assertThat(view.get("activities").get("reserve-stock").get("operationId").asText()).isEqualTo(id + "/reserve-stock");
        assertThat(view.get("activities").get("authorize-payment").get("status").asText()).isEqualTo("succeeded");
        assertThat(view.get("providerReference").asText()).isNotBlank();

        List<String> types = new ArrayList<>();
        JsonNode history = api.get("/api/v1/checkouts/" + id + "/history").json();
        for (int i = 0; i < history.size(); i++) {
            assertThat(history.get(i).get("sequence").asLong()).isEqualTo(i);
            types.add(history.get(i).get("type").asText());
        }
        assertThat(types).containsExactly("CheckoutCreatedEvent", "StockReservationRequestedEvent", "StockReservedEvent",
                "PaymentAuthorizationRequestedEvent", "PaymentAuthorizedEvent", "CheckoutConfirmedEvent",
                "PaymentCaptureRequestedEvent", "PaymentCapturedEvent", "ReceiptRequestedEvent", "ReceiptSentEvent",
                "CheckoutCompletedEvent");

        // Side effects, once each, in the activity services' own tables.
        // a confirmed order is a sale: the reservation's units move from reserved to sold
        await().atMost(Duration.ofSeconds(10)).until(() -> count(
                "SELECT count(*) FROM inventory_operations WHERE checkout_id = ? AND status = 'SOLD'", id) == 1);
        assertThat(count("SELECT count(*) FROM inventory_operations WHERE checkout_id = ? AND kind = 'RESERVE'", id)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM simulator_authorizations WHERE operation_id = ? AND status = 'AUTHORIZED'",
                id + "/authorize-payment")).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM outbound_messages WHERE operation_id = ?", id + "/send-receipt")).isEqualTo(1);
    }

    @Test
    void theSameIdempotencyKeyCreatesOneCheckoutEvenWhenRequestsRace() {
        String key = key();
        String body = checkoutBody("SKU-0008", 1, 500, "tok_approve");

        List<HttpApi.Response> responses = IntStream.range(0, 6)
                .mapToObj(i -> CompletableFuture.supplyAsync(() -> api.startCheckout(key, body))).toList()
                .stream().map(CompletableFuture::join).toList();
        HttpApi.Response again = api.startCheckout(key, body);

        Set<String> ids = new java.util.HashSet<>();
        responses.forEach(r -> {
            assertThat(r.status()).isEqualTo(202);
            ids.add(r.json().get("checkoutId").asText());
        });
        ids.add(again.json().get("checkoutId").asText());
        assertThat(ids).hasSize(1);
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        String id = ids.iterator().next();
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? AND sequencenumber = 0", id))
                .isEqualTo(1);
        awaitState(id, "completed");
        assertThat(count("SELECT count(*) FROM inventory_operations WHERE checkout_id = ?", id)).isEqualTo(1);
    }

    /**
     * A checkout made before keys were registered (decision 85): its id has no registration, so a retry registers it
     * as new and skips the history read; the Checkout's first events then collide with the recorded ones, and the
     * retry must still be answered as a replay, with nothing written.
     */
    @Test
    void aRetryOfACheckoutMadeBeforeKeysIsAnsweredAsAReplayAndWritesNothing() throws Exception {
        String key = key();
        String body = checkoutBody("SKU-0010", 1, 500, "tok_approve");
        String id = api.startCheckout(key, body).json().get("checkoutId").asText();
        awaitState(id, "completed");
        // as such a checkout was recorded: no registration, no key, the request's plain SHA-256 as its fingerprint, in
        // the event and in the command recorded with it (so the history still replays identically: ReplayCorpusIT)
        String plain = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(
                "SKU-0010\u00001\n500 EUR\ntok_approve\na@example.com".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        String legacy = "convert_to(regexp_replace(convert_from(%s, 'UTF8'), "
                + "'\"requestFingerprint\":\"hmac:v1:[0-9a-f]+\"', '\"requestFingerprint\":\"' || ? || '\"'), 'UTF8')";
        assertThat(jdbc.update("UPDATE domainevententry SET payload = " + legacy.formatted("payload") + ", metadata = "
                + legacy.formatted("metadata") + " WHERE aggregateidentifier = ? AND sequencenumber = 0", plain, plain, id))
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? AND sequencenumber = 0 "
                + "AND position(convert_to(?, 'UTF8') IN metadata) > 0", id, plain)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? AND sequencenumber = 0 "
                + "AND position(convert_to(?, 'UTF8') IN payload) > 0", id, plain)).isEqualTo(1);
        jdbc.update("DELETE FROM personal_data_keys WHERE checkout_id = ?", id);
        keys.destroy(id);
        long events = count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?", id);

        HttpApi.Response again = api.startCheckout(key, body);

        assertThat(again.status()).isEqualTo(202);
        assertThat(again.json().get("checkoutId").asText()).isEqualTo(id);
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?", id)).isEqualTo(events);
        // (the key the retry made before its append collided stays: no registration refers to it, and erasing the
        // checkout destroys it; destroying it here could race a sealing that registers the checkout meanwhile)
        assertThat(count("SELECT count(*) FROM personal_data_keys WHERE checkout_id = ?", id)).isZero();
        // and a different body under the same key is still told apart
        assertProblem(api.startCheckout(key, checkoutBody("SKU-0010", 2, 500, "tok_approve")), 422,
                "idempotency-key-reused");
    }

    @Test
    void aReusedIdempotencyKeyWithADifferentBodyIsRefused() {
        String key = key();
        api.startCheckout(key, checkoutBody("SKU-0009", 1, 500, "tok_approve"));

        HttpApi.Response r = api.startCheckout(key, checkoutBody("SKU-0009", 2, 500, "tok_approve"));

        assertProblem(r, 422, "idempotency-key-reused");
    }

    @Test
    void badInputGetsAProblemAndWritesNothing() {
        // the read model follows on its tick (decision 79): let it reach the checkouts other tests made first
        await().atMost(Duration.ofSeconds(10))
                .until(() -> count("SELECT count(*) FROM checkout_summary") == createdCheckouts());
        long eventsBefore = createdCheckouts();
        long summariesBefore = count("SELECT count(*) FROM checkout_summary");

        assertProblem(api.startCheckout(key(), "{not json"), 400, "malformed-request");
        assertProblem(api.startCheckout(key(), "{\"items\":[],\"amount\":{\"minor\":0,\"currency\":\"EUR\"}}"), 400, "invalid-request");
        assertProblem(api.startCheckout(key(), checkoutBody("SKU-0001", 0, 100, "tok_approve")), 400, "invalid-request");
        assertProblem(api.startCheckout(key(), checkoutBody("SKU-0001", -3, 100, "tok_approve")), 400, "invalid-request");
        assertProblem(api.startCheckout(key(), checkoutBody("SKU-0001", 1, -1, "tok_approve")), 400, "invalid-request");
        long keysBefore = count("SELECT count(*) FROM personal_data_keys");
        String unknownSkuKey = key();
        assertProblem(api.startCheckout(unknownSkuKey, checkoutBody("NO-SUCH-SKU", 1, 100, "tok_approve")), 422, "unknown-sku");
        // the submission registers its id for a key before the checks: the refusal must take the row back, and no key
        // may have been made for it (crypto-shredding keeps keys outside the database)
        String refusedId = checkoutIds.idFor(new TenantId("demo"), unknownSkuKey).value();
        assertThat(count("SELECT count(*) FROM personal_data_keys")).isEqualTo(keysBefore);
        assertThat(keys.find(refusedId)).isEmpty();
        assertProblem(api.send("POST", "/api/v1/checkouts", HttpApi.DEMO_KEY, Map.of(),
                checkoutBody("SKU-0001", 1, 100, "tok_approve")), 400, "missing-idempotency-key");
        assertProblem(api.send("POST", "/api/v1/checkouts", null, Map.of("Idempotency-Key", key()),
                checkoutBody("SKU-0001", 1, 100, "tok_approve")), 401, "unauthorized");
        assertProblem(api.send("POST", "/api/v1/checkouts", "not-a-key", Map.of("Idempotency-Key", key()),
                checkoutBody("SKU-0001", 1, 100, "tok_approve")), 401, "unauthorized");
        assertProblem(api.get("/api/v1/checkouts/co_does-not-exist"), 404, "not-found");

        JsonNode invalid = api.startCheckout(key(), "{\"items\":[{\"sku\":\"SKU-0001\",\"quantity\":0}],"
                + "\"amount\":{\"minor\":0,\"currency\":\"eur\"},\"paymentToken\":\"\",\"customerEmail\":\"x\"}").json();
        assertThat(invalid.get("errors")).hasSize(5);

        assertThat(createdCheckouts()).isEqualTo(eventsBefore);
        assertThat(count("SELECT count(*) FROM checkout_summary")).isEqualTo(summariesBefore);
    }

    @Test
    void anotherTenantsCheckoutIsNotVisible() {
        String id = api.startCheckout(key(), checkoutBody("SKU-0010", 1, 100, "tok_approve")).json().get("checkoutId").asText();
        // a real second tenant with a valid key: the checkout does not exist for it, on any read
        String shop = "shop-" + UUID.randomUUID().toString().substring(0, 8);
        apiKeys.createTenant(shop, "Another shop");
        String otherKey = apiKeys.issue(shop, EnumSet.of(Caller.Role.TENANT), "http-it", "test").key();
        for (String path : List.of("", "/history", "/history/0/state")) {
            HttpApi.Response r = api.send("GET", "/api/v1/checkouts/" + id + path, otherKey, Map.of(), null);
            assertThat(r.status()).as("GET %s as another tenant: %s", path, r.body()).isEqualTo(404);
            assertThat(r.body()).doesNotContain("tok_approve");
        }
        // lists come from the read model, which follows once a second: absent only counts once the row is there
        await().atMost(Duration.ofSeconds(10)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ?", id) == 1);
        assertThat(api.send("GET", "/api/v1/checkouts?limit=500", otherKey, Map.of(), null).json()
                .findValuesAsText("checkoutId")).doesNotContain(id);
        // while its own tenant and the operator see it; an unknown key does not get in at all
        assertThat(api.send("GET", "/api/v1/checkouts/" + id, HttpApi.DEMO_KEY, Map.of(), null).status()).isEqualTo(200);
        assertThat(api.send("GET", "/api/v1/checkouts/" + id, HttpApi.OPERATOR_KEY, Map.of(), null).status()).isEqualTo(200);
        assertThat(api.send("GET", "/api/v1/checkouts/" + id, "other", Map.of(), null).status()).isEqualTo(401);
    }

    @Test
    void historiesAndStatesShowThePaymentTokenMaskedToTheTenantAndToOperators() {
        String id = api.startCheckout(key(), checkoutBody("SKU-0011", 1, 100, "tok_approve")).json().get("checkoutId").asText();
        awaitState(id, "completed");
        for (String key : List.of(HttpApi.DEMO_KEY, HttpApi.OPERATOR_KEY)) {
            for (String path : List.of("/history", "/history/0/state", "/history/3/state")) {
                HttpApi.Response r = api.send("GET", "/api/v1/checkouts/" + id + path, key, Map.of(), null);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).as("%s as %s", path, key.equals(HttpApi.DEMO_KEY) ? "tenant" : "operator")
                        .doesNotContain("tok_approve").contains("\"paymentToken\":\"****rove\"");
            }
        }
    }

    @Test
    void outOfStockEndsCancelledWithItsReasonAndHoldsNothing() {
        String sku = "SCARCE-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, 1);

        String id = api.startCheckout(key(), checkoutBody(sku, 2, 100, "tok_approve")).json().get("checkoutId").asText();

        JsonNode view = awaitState(id, "cancelled");
        assertThat(view.get("reason").asText()).isEqualTo("out_of_stock");
        assertThat(count("SELECT available FROM stock WHERE sku = ?", sku)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM simulator_authorizations WHERE operation_id LIKE ?", id + "/%")).isZero();
    }

    /** The shared wait (HttpApi.awaitState) stops as soon as the checkout ended otherwise, not at its time limit. */
    @Test
    void waitingForAnOutcomeStopsWhenADifferentFinalOneIsReached() {
        String id = api.startCheckout(key(), checkoutBody("SKU-0013", 1, 100, "tok_decline")).json().get("checkoutId")
                .asText();
        long started = System.nanoTime();
        assertThatThrownBy(() -> api.awaitState(id, "completed", Duration.ofSeconds(60)))
                .hasMessageContaining("reached a different final state than completed");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
        assertThat(api.get("/api/v1/checkouts/" + id).json().get("state").asText()).isEqualTo("cancelled");
    }

    @Test
    void theOpenApiDocumentIsServedToOperatorsOnly() {
        assertThat(api.send("GET", "/v3/api-docs", null, Map.of(), null).status()).isEqualTo(401);
        assertThat(api.send("GET", "/v3/api-docs", HttpApi.DEMO_KEY, Map.of(), null).status()).isEqualTo(403);
        assertThat(api.send("GET", "/actuator/prometheus", null, Map.of(), null).status()).isEqualTo(401);
        assertThat(api.send("GET", "/actuator/health", null, Map.of(), null).status()).isEqualTo(200);
        HttpApi.Response r = api.send("GET", "/v3/api-docs", HttpApi.OPERATOR_KEY, Map.of(), null);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("paths").has("/api/v1/checkouts")).isTrue();
        assertThat(r.json().get("info").get("title").asText()).isEqualTo("Durable checkout orchestrator API");
        assertThat(r.json().get("info").get("version").asText()).isEqualTo("v1");
    }

    JsonNode awaitState(String id, String state) {
        return api.awaitState(id, state, Duration.ofSeconds(20));
    }

    static void assertProblem(HttpApi.Response r, int status, String type) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
        assertThat(r.json().get("type").asText()).isEqualTo("urn:durable-checkout:problem:" + type);
        assertThat(r.json().get("detail").asText()).isNotBlank();
    }

    static String key() {
        return "it-" + UUID.randomUUID();
    }
}
