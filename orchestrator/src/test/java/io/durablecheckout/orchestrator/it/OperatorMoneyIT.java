package io.durablecheckout.orchestrator.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.it.support.DashboardSession;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import io.durablecheckout.orchestrator.tenancy.ApiKeys;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.axonframework.common.caching.Cache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An operator's payment operations on completed checkouts (decisions 130 and 131) over real HTTP and PostgreSQL, with
 * the provider simulator's ledger as the witness of money moved: partial refunds through the dashboard's repair
 * preview and the operator API (one REFUND per operation at the simulator, with its amount, never beyond the
 * capture), and the holds of checkouts completed before capture was a step, listed, then captured or released.
 */
class OperatorMoneyIT extends IntegrationTestBase {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Autowired
    InventoryAdmin inventory;

    @Autowired
    ApiKeys apiKeys;

    @Autowired
    @Qualifier("checkoutCache")
    Cache checkoutCache;

    @AfterEach
    void invariants() {
        assertInvariantsHold();
    }

    @Test
    void partialRefundsArePreviewedConfirmedAuditedAndNeverExceedWhatWasCaptured() {
        String id = start("tok_approve", null);
        JsonNode completed = api.awaitState(id, "completed", Duration.ofSeconds(30));
        long version = completed.get("version").asLong();

        // an operator who may only read is refused, and nothing changes
        String readKey = apiKeys.issue("operator", EnumSet.of(Caller.Role.OPERATOR_READ), "money-it-read", "test").key();
        HttpApi.Response forbidden = api.send("POST", "/api/v1/operator/checkouts/" + id + "/refund", readKey,
                Map.of("If-Match", "\"" + version + "\""), refundBody(1000, "EUR", "damaged"));
        assertThat(forbidden.status()).isEqualTo(403);

        DashboardSession operator = signedIn();
        assertThat(actions(operator, id)).containsExactly("refund", "cancel");

        // the preview: the operation it would issue under an id of its own, or the rule that refuses it
        JsonNode preview = preview(operator, id, version, 1000, "EUR");
        assertThat(preview.path("allowed").asBoolean()).as(preview.toString()).isTrue();
        assertThat(preview.path("operationIds").toString()).isEqualTo("[\"" + id + "/refund-payment/operator-1\"]");
        assertThat(preview.path("events").toString()).contains("PaymentOperationOrderedEvent")
                .contains("PaymentRefundRequestedEvent");
        assertThat(preview(operator, id, version, 0, "EUR").path("refusal").asText()).contains("more than 0");
        assertThat(preview(operator, id, version, 2501, "EUR").path("refusal").asText())
                .contains("at most the 2500 EUR captured and not refunded yet");
        assertThat(preview(operator, id, version, 1000, "USD").path("refusal").asText()).contains("must be in EUR");

        // confirmed with the previewed version; a moved version is 412
        assertThat(refund(id, version - 1, 1000, "damaged").status()).isEqualTo(412);
        HttpApi.Response first = refund(id, version, 1000, "damaged in transit");
        assertThat(first.status()).as(first.body()).isEqualTo(202);
        awaitRefunded(id, 1000);
        assertThat(refundsAtTheSimulator(id + "/refund-payment/operator-1")).containsExactly(1000L);
        // concluded: finished again, nothing waiting (while it ran, it was listed as waiting, its lease watched)
        await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT count(*) FROM checkout_summary "
                + "WHERE checkout_id = ? AND terminal AND waiting_reason IS NULL", id) == 1);

        // the rest, through the dashboard's action, under the next operation id
        long afterFirst = api.get("/api/v1/checkouts/" + id).json().get("version").asLong();
        HttpApi.Response second = operator.post("/dashboard/api/checkouts/" + id + "/actions",
                "{\"action\":\"refund\",\"version\":" + afterFirst + ",\"reason\":\"second item missing\","
                        + "\"amount\":{\"minor\":1500,\"currency\":\"EUR\"}}");
        assertThat(second.status()).as(second.body()).isEqualTo(202);
        awaitRefunded(id, 2500);
        assertThat(refundsAtTheSimulator(id + "/refund-payment/operator-2")).containsExactly(1500L);

        // one beyond what was captured: refused as problem+json, and nothing changes
        long afterSecond = api.get("/api/v1/checkouts/" + id).json().get("version").asLong();
        long calls = count("SELECT count(*) FROM simulator_calls WHERE action = 'REFUND' AND operation_id = ?",
                id + "/authorize-payment");
        HttpApi.Response beyond = refund(id, afterSecond, 1, "one more");
        assertThat(beyond.status()).isEqualTo(409);
        assertThat(beyond.header("Content-Type")).startsWith("application/problem+json");
        HttpApi.Response bad = refund(id, afterSecond, null, "no amount");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.header("Content-Type")).startsWith("application/problem+json");
        JsonNode after = api.get("/api/v1/checkouts/" + id).json();
        assertThat(after.get("version").asLong()).isEqualTo(afterSecond);
        assertThat(after.get("state").asText()).isEqualTo("completed");
        assertThat(count("SELECT count(*) FROM simulator_calls WHERE action = 'REFUND' AND operation_id = ?",
                id + "/authorize-payment")).isEqualTo(calls).isEqualTo(2);
        assertThat(count("SELECT coalesce(sum(amount_minor), 0) FROM simulator_idempotency WHERE action = 'REFUND' "
                + "AND authorization_operation_id = ?", id + "/authorize-payment")).isEqualTo(2500);
        assertThat(count("SELECT count(*) FROM audit_log WHERE action = 'checkout.RefundPayment' AND target = ?",
                "checkout:" + id)).isEqualTo(2);
        // who and why travel with the events the action caused
        List<String> reasons = new ArrayList<>();
        api.get("/api/v1/checkouts/" + id + "/history").json().forEach(e -> {
            if (e.path("type").asText().equals("PaymentOperationOrderedEvent")) {
                reasons.add(e.path("metadata").path("reason").asText());
            }
        });
        assertThat(reasons).containsExactly("damaged in transit", "second item missing");
    }

    @Test
    void aCancelAfterAPartialRefundRefundsOnlyTheRest() {
        String id = start("tok_approve", null);
        long version = api.awaitState(id, "completed", Duration.ofSeconds(30)).get("version").asLong();
        assertThat(refund(id, version, 1000, "damaged").status()).isEqualTo(202);
        awaitRefunded(id, 1000);
        long refunded = api.get("/api/v1/checkouts/" + id).json().get("version").asLong();

        HttpApi.Response cancel = api.send("POST", "/api/v1/operator/checkouts/" + id + "/cancel", HttpApi.OPERATOR_KEY,
                Map.of("If-Match", "\"" + refunded + "\""), "{\"reason\":\"goods returned\"}");
        assertThat(cancel.status()).as(cancel.body()).isEqualTo(202);

        api.awaitState(id, "cancelled", Duration.ofSeconds(30));
        assertThat(refundsAtTheSimulator(id + "/refund-payment")).containsExactly(1500L);
        assertThat(count("SELECT coalesce(sum(amount_minor), 0) FROM simulator_idempotency WHERE action = 'REFUND' "
                + "AND authorization_operation_id = ?", id + "/authorize-payment")).isEqualTo(2500);
    }

    @Test
    void holdsOfCheckoutsCompletedBeforeCaptureAreListedThenCapturedOrReleasedOnce() throws Exception {
        String captured = legacyCompleted();
        String released = legacyCompleted();
        String readKey = apiKeys.issue("operator", EnumSet.of(Caller.Role.OPERATOR_READ), "money-it-holds", "test").key();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(holds(readKey, "demo"))
                .contains(captured, released));
        JsonNode row = holdRow(readKey, captured);
        assertThat(row.path("amount").path("minor").asLong()).isEqualTo(2500);
        assertThat(row.path("ageSeconds").asLong()).isGreaterThanOrEqualTo(0);
        assertThat(row.path("holdExpiresAt").isNull()).isTrue();
        assertThat(holds(readKey, "no-such-tenant")).doesNotContain(captured, released);
        assertThat(api.send("GET", "/api/v1/operator/uncaptured-holds", HttpApi.DEMO_KEY, Map.of(), null).status())
                .isEqualTo(403);
        assertThat(api.send("GET", "/api/v1/operator/uncaptured-holds?limit=0", readKey, Map.of(), null).status())
                .isEqualTo(400);
        HttpApi.Response firstPage = api.send("GET", "/api/v1/operator/uncaptured-holds?limit=1", readKey, Map.of(),
                null);
        assertThat(firstPage.json().path("holds")).hasSize(1);
        assertThat(firstPage.json().path("nextCursor").asText()).isNotBlank();

        // a read-only operator may list, not act
        assertThat(hold(captured, "capture-hold", readKey).status()).isEqualTo(403);

        HttpApi.Response capture = hold(captured, "capture-hold", HttpApi.OPERATOR_KEY);
        assertThat(capture.status()).as(capture.body()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT coalesce(sum(captures), 0) "
                + "FROM simulator_authorizations WHERE operation_id = ?", captured + "/authorize-payment") == 1);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(holds(readKey, "demo"))
                .doesNotContain(captured));
        assertThat(count("SELECT count(*) FROM simulator_calls WHERE action = 'CAPTURE' AND idempotency_key = ?",
                captured + "/capture-payment/legacy-hold")).isEqualTo(1);
        assertThat(count("SELECT captured_minor FROM simulator_authorizations WHERE operation_id = ?",
                captured + "/authorize-payment")).isEqualTo(2500);
        JsonNode capturedView = api.get("/api/v1/checkouts/" + captured).json();
        assertThat(capturedView.get("state").asText()).isEqualTo("completed");
        assertThat(capturedView.get("captured").get("minor").asLong()).isEqualTo(2500);
        // captured once: a second capture is refused and changes nothing
        assertThat(hold(captured, "capture-hold", HttpApi.OPERATOR_KEY).status()).isEqualTo(409);

        HttpApi.Response release = hold(released, "release-hold", HttpApi.OPERATOR_KEY);
        assertThat(release.status()).as(release.body()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM simulator_authorizations "
                + "WHERE operation_id = ? AND voided", released + "/authorize-payment") == 1);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(holds(readKey, "demo"))
                .doesNotContain(released));
        assertThat(count("SELECT count(*) FROM simulator_calls WHERE action = 'VOID' AND idempotency_key = ?",
                released + "/void-payment/legacy-hold")).isEqualTo(1);
        assertThat(count("SELECT coalesce(sum(captures), 0) FROM simulator_authorizations WHERE operation_id = ?",
                released + "/authorize-payment")).isZero();
        assertThat(api.get("/api/v1/checkouts/" + released).json().get("state").asText()).isEqualTo("completed");
        assertThat(count("SELECT count(*) FROM audit_log WHERE action = 'checkout.SettleHold' AND target IN (?, ?)",
                "checkout:" + captured, "checkout:" + released)).isEqualTo(2);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /**
     * A checkout as it was completed before capture was a step (rules version 2): a deferred checkout is driven to
     * awaiting_capture (authorized at the simulator, receipt sent, nothing captured), then its stored history is
     * rewritten to what rules version 2 decided from the same inputs (the policy's version and capture fields, the
     * confirmation without a hold and its deadline, completed after the receipt), so it replays identically under the
     * rules it records; the cached copy is dropped and the read model row says what the history says.
     */
    private String legacyCompleted() throws Exception {
        String id = start("tok_approve", "deferred");
        api.awaitState(id, "awaiting_capture", Duration.ofSeconds(30));
        long last = count("SELECT max(sequencenumber) FROM domainevententry WHERE aggregateidentifier = ?", id);
        await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT coalesce(max(version), -1) "
                + "FROM checkout_summary WHERE checkout_id = ?", id) == last);
        List<Map<String, Object>> events = jdbc.queryForList("SELECT sequencenumber, payloadtype, payload, metadata "
                + "FROM domainevententry WHERE aggregateidentifier = ? ORDER BY sequencenumber", id);
        for (Map<String, Object> e : events) {
            long seq = ((Number) e.get("sequencenumber")).longValue();
            String type = (String) e.get("payloadtype");
            ObjectNode payload = (ObjectNode) JSON.readTree((byte[]) e.get("payload"));
            if (type.endsWith(".CheckoutCreatedEvent")) {
                ObjectNode policy = (ObjectNode) payload.get("policy");
                policy.put("version", 2);
                policy.putNull("capture");
                policy.putNull("holdValidity");
                policy.putNull("customerActionTimeout");
                update(id, seq, type, payload);
            } else if (type.endsWith(".CheckoutConfirmedEvent")) {
                payload.putNull("holdExpiresAt");
                update(id, seq, type, payload);
            } else if (type.endsWith(".CaptureAwaitedEvent")) {
                payload.remove("holdExpiresAt");
                jdbc.update("UPDATE domainevententry SET payloadtype = ?, payloadrevision = '1', payload = ? "
                                + "WHERE aggregateidentifier = ? AND sequencenumber = ?",
                        "io.durablecheckout.api.checkout.CheckoutCompletedEvent", bytes(payload), id, seq);
            }
            String metadata = new String((byte[]) e.get("metadata"), StandardCharsets.UTF_8);
            if (metadata.contains("checkout-hold-expired")) {
                ObjectNode meta = (ObjectNode) JSON.readTree(metadata);
                ArrayNode kept = JSON.createArrayNode();
                meta.withArray("replay.deadlines").forEach(op -> {
                    if (!op.path("name").asText().equals("checkout-hold-expired")) {
                        kept.add(op);
                    }
                });
                meta.set("replay.deadlines", kept);
                jdbc.update("UPDATE domainevententry SET metadata = ? WHERE aggregateidentifier = ? "
                        + "AND sequencenumber = ?", bytes(meta), id, seq);
            }
        }
        jdbc.update("DELETE FROM scheduled_tasks WHERE position(convert_to(?, 'UTF8') IN task_data) > 0 "
                + "AND position(convert_to('checkout-hold-expired', 'UTF8') IN task_data) > 0", id);
        checkoutCache.remove(id);
        jdbc.update("UPDATE checkout_summary SET state = 'completed', terminal = TRUE, waiting_reason = NULL, "
                + "next_deadline = NULL, view = (view - 'captureMode' - 'holdExpiresAt' - 'waiting') "
                + "|| jsonb_build_object('state', 'completed', 'terminal', TRUE, 'completedAt', ?::text) "
                + "WHERE checkout_id = ?", Instant.now().toString(), id);
        assertThat(api.get("/api/v1/checkouts/" + id + "/history").body()).contains("CheckoutCompletedEvent")
                .doesNotContain("CaptureAwaitedEvent");
        return id;
    }

    private void update(String id, long seq, String type, ObjectNode payload) throws Exception {
        assertThat(jdbc.update("UPDATE domainevententry SET payload = ? WHERE aggregateidentifier = ? "
                + "AND sequencenumber = ? AND payloadtype = ?", bytes(payload), id, seq, type)).isEqualTo(1);
    }

    private static byte[] bytes(JsonNode node) throws Exception {
        return JSON.writeValueAsBytes(node);
    }

    private String start(String token, String capture) {
        String sku = "M-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, 10);
        String body = HttpApi.checkoutBody(sku, 1, 2500, token);
        if (capture != null) {
            body = body.substring(0, body.length() - 1) + ",\"capture\":\"" + capture + "\"}";
        }
        HttpApi.Response r = api.startCheckout("money-" + UUID.randomUUID(), body);
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("checkoutId").asText();
    }

    private static String refundBody(Integer minor, String currency, String reason) {
        return "{" + (minor == null ? "" : "\"amount\":{\"minor\":" + minor + ",\"currency\":\"" + currency + "\"},")
                + "\"reason\":\"" + reason + "\"}";
    }

    private HttpApi.Response refund(String id, long version, Integer minor, String reason) {
        return api.send("POST", "/api/v1/operator/checkouts/" + id + "/refund", HttpApi.OPERATOR_KEY,
                Map.of("If-Match", "\"" + version + "\""), refundBody(minor, "EUR", reason));
    }

    private HttpApi.Response hold(String id, String action, String key) {
        long version = api.get("/api/v1/checkouts/" + id).json().get("version").asLong();
        return api.send("POST", "/api/v1/operator/checkouts/" + id + "/" + action, key,
                Map.of("If-Match", "\"" + version + "\""), "{\"reason\":\"legacy hold, order shipped\"}");
    }

    private static JsonNode preview(DashboardSession operator, String id, long version, long minor, String currency) {
        return operator.post("/dashboard/api/checkouts/" + id + "/preview", "{\"action\":\"refund\",\"version\":"
                + version + ",\"reason\":\"damaged\",\"amount\":{\"minor\":" + minor + ",\"currency\":\"" + currency
                + "\"}}").json();
    }

    private void awaitRefunded(String id, long minor) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode view = api.get("/api/v1/checkouts/" + id).json();
            return view.path("refunded").path("minor").asLong() == minor
                    && (view.path("refunding").isNull() || view.path("refunding").isMissingNode());
        });
    }

    /** The amount of each refund the simulator made under {@code key}: one per operation. */
    private List<Long> refundsAtTheSimulator(String key) {
        assertThat(count("SELECT count(*) FROM simulator_calls WHERE action = 'REFUND' AND idempotency_key = ?", key))
                .isEqualTo(1);
        return jdbc.queryForList("SELECT amount_minor FROM simulator_idempotency WHERE action = 'REFUND' "
                + "AND idempotency_key = ?", Long.class, key);
    }

    private List<String> holds(String key, String tenant) {
        List<String> ids = new ArrayList<>();
        HttpApi.Response r = api.send("GET", "/api/v1/operator/uncaptured-holds?limit=500&tenant=" + tenant, key,
                Map.of(), null);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        r.json().path("holds").forEach(h -> ids.add(h.path("checkoutId").asText()));
        return ids;
    }

    private JsonNode holdRow(String key, String id) {
        HttpApi.Response r = api.send("GET", "/api/v1/operator/uncaptured-holds?limit=500", key, Map.of(), null);
        for (JsonNode h : r.json().path("holds")) {
            if (h.path("checkoutId").asText().equals(id)) {
                return h;
            }
        }
        throw new AssertionError(id + " not listed: " + r.body());
    }

    private List<String> actions(DashboardSession operator, String id) {
        List<String> values = new ArrayList<>();
        operator.get("/dashboard/api/checkouts/" + id).json().path("actions")
                .forEach(a -> values.add(a.path("value").asText()));
        return values;
    }

    private DashboardSession signedIn() {
        DashboardSession s = new DashboardSession(port);
        assertThat(s.signIn("operator", HttpApi.OPERATOR_KEY)).doesNotContain("error");
        return s;
    }
}
