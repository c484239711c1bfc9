package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.DashboardSession;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.orchestrator.tenancy.ApiKeys;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The dashboard's JSON over HTTP with a signed-in session: roles, CSRF, bad input, search, paging, bulk repair. */
class DashboardApiIT extends IntegrationTestBase {

    @Autowired
    ApiKeys apiKeys;

    @Test
    void aReadOnlyOperatorSeesButCannotRepairAndAForgedPostIsRefused() {
        String key = apiKeys.issue("operator", EnumSet.of(Caller.Role.OPERATOR_READ), "dashboard-it-read", "test").key();
        DashboardSession reader = new DashboardSession(port);
        assertThat(reader.signIn("", key)).doesNotContain("error");
        assertThat(reader.get("/dashboard/api/me").json().path("canRepair").asBoolean()).isFalse();
        assertThat(reader.get("/dashboard/api/checkouts").status()).isEqualTo(200);
        String id = start("tok_approve");
        HttpApi.Response preview = reader.post("/dashboard/api/checkouts/" + id + "/preview",
                "{\"action\":\"cancel\",\"reason\":\"x\"}");
        assertThat(preview.status()).isEqualTo(403);

        DashboardSession repairer = new DashboardSession(port);
        assertThat(repairer.signIn("operator", HttpApi.OPERATOR_KEY)).doesNotContain("error");
        assertThat(repairer.postWithoutCsrf("/dashboard/api/checkouts/" + id + "/preview",
                "{\"action\":\"cancel\",\"reason\":\"x\"}").status()).as("no CSRF token").isEqualTo(403);

        // the wrong account for a real operator key, and a tenant key: no session
        assertThat(new DashboardSession(port).signIn("someone-else", HttpApi.OPERATOR_KEY)).contains("error");
        assertThat(new DashboardSession(port).signIn("", HttpApi.DEMO_KEY)).contains("error");

        // signing out ends the session
        DashboardSession leaving = signedIn();
        assertThat(leaving.get("/dashboard/api/me").status()).isEqualTo(200);
        assertThat(leaving.signOut()).startsWith("302").endsWith("/login?logout");
        assertThat(leaving.get("/dashboard/api/me").status()).isEqualTo(401);

        // revoking the key ends the session's rights at once
        String keyId = reader.get("/dashboard/api/me").json().path("keyId").asText();
        apiKeys.revoke(keyId, "test");
        assertThat(reader.get("/dashboard/api/checkouts").status()).isEqualTo(401);
    }

    @Test
    void badInputIsAProblemAndSearchFindsByIdKeyAndReference() {
        DashboardSession operator = signedIn();
        HttpApi.Response badState = operator.get("/dashboard/api/checkouts?state=lost");
        assertThat(badState.status()).isEqualTo(400);
        assertThat(badState.header("Content-Type")).contains("application/problem+json");
        assertThat(operator.get("/dashboard/api/checkouts?cursor=nonsense").status()).isEqualTo(400);
        assertThat(operator.get("/dashboard/api/checkouts?from=yesterday").status()).isEqualTo(400);
        assertThat(operator.post("/dashboard/api/checkouts/co_x/actions", "{\"action\":\"explode\"}").status())
                .isEqualTo(400);

        String key = "search-" + UUID.randomUUID();
        String id = api.startCheckout(key, HttpApi.checkoutBody("SKU-0201", 1, 1000, "tok_approve"))
                .json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(20)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'completed'", id) == 1);
        String reference = jdbc.queryForObject("SELECT view ->> 'providerReference' FROM checkout_summary "
                + "WHERE checkout_id = ?", String.class, id);
        for (String q : List.of(id, key, reference)) {
            JsonNode rows = operator.get("/dashboard/api/checkouts?q=" + q).json().path("rows");
            assertThat(rows).as(q).hasSize(1);
            assertThat(rows.get(0).path("checkoutId").asText()).isEqualTo(id);
        }
        assertThat(operator.get("/dashboard/api/checkouts?q=" + key + "&state=cancelled").json().path("rows")).isEmpty();

        // the replay verdict and the history bundle, from the checkout's page
        assertThat(operator.get("/dashboard/api/checkouts/" + id + "/replay").json().path("verdict").asText())
                .isEqualTo("identical");
        HttpApi.Response bundle = operator.get("/dashboard/api/checkouts/" + id + "/bundle");
        assertThat(bundle.status()).isEqualTo(200);
        assertThat(bundle.header("Content-Disposition")).contains("attachment");
        assertThat(bundle.body()).contains(id).doesNotContain("a@example.com");
    }

    @Test
    void keysetPagesWalkEveryCheckoutOnceNewestFirst() {
        // Earlier tests' summary rows may still arrive during the walk (the read model is written on its own tick),
        // anywhere in the order. Keyset paging promises: every row there before the walk is seen exactly once, and
        // what is seen is in the table's order; rows arriving meanwhile may or may not be seen.
        String order = "SELECT checkout_id FROM checkout_summary ORDER BY created_at DESC, checkout_id DESC";
        long missing = 15 - count("SELECT count(*) FROM checkout_summary");
        List<String> mine = new ArrayList<>();
        for (int i = 0; i < missing; i++) {
            mine.add(start("tok_approve"));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM checkout_summary "
                + "WHERE checkout_id = ANY(?)", (Object) mine.toArray(String[]::new)) == mine.size());
        List<String> before = jdbc.queryForList(order, String.class);
        DashboardSession operator = signedIn();
        List<String> seen = new ArrayList<>();
        String cursor = null;
        do {
            JsonNode page = operator.get("/dashboard/api/checkouts?limit=7" + (cursor == null ? "" : "&cursor=" + cursor))
                    .json();
            page.path("rows").forEach(r -> seen.add(r.path("checkoutId").asText()));
            cursor = page.path("nextCursor").isNull() ? null : page.path("nextCursor").asText(null);
        } while (cursor != null);
        List<String> after = jdbc.queryForList(order, String.class);
        assertThat(before).as("three pages at least").hasSizeGreaterThan(14);
        assertThat(seen).doesNotHaveDuplicates();
        assertThat(seen).containsAll(before);
        Set<String> seenSet = Set.copyOf(seen);
        assertThat(seen).containsExactlyElementsOf(after.stream().filter(seenSet::contains).toList());
    }

    @Test
    void bulkRetryPreviewsTheCountThenRetriesEachWithTheReason() {
        Instant from = Instant.now().minusSeconds(1);
        List<String> ids = List.of(start("tok_unknown"), start("tok_unknown"));
        await().atMost(Duration.ofSeconds(40)).until(() -> count("SELECT count(*) FROM checkout_summary WHERE "
                + "checkout_id = ANY(?) AND state = 'manual_review'", (Object) ids.toArray(String[]::new)) == 2);
        DashboardSession operator = signedIn();
        String filter = "\"state\":\"manual_review\",\"from\":\"" + from + "\"";
        JsonNode preview = operator.post("/dashboard/api/bulk/preview", "{\"action\":\"retry\"," + filter + "}").json();
        assertThat(preview.path("willActOn").asInt()).isEqualTo(2);
        assertThat(operator.post("/dashboard/api/bulk", "{\"action\":\"retry\"," + filter + "}").status())
                .as("a reason is required").isEqualTo(400);
        JsonNode job = operator.post("/dashboard/api/bulk", "{\"action\":\"retry\",\"reason\":\"provider back up\","
                + "\"expectedCount\":2," + filter + "}").json();
        String jobId = job.path("jobId").asText();
        await().atMost(Duration.ofSeconds(20)).until(() ->
                operator.get("/dashboard/api/bulk/" + jobId).json().path("finished").asBoolean());
        JsonNode done = operator.get("/dashboard/api/bulk/" + jobId).json();
        assertThat(done.path("done").asInt()).as(done.toString()).isEqualTo(2);
        for (String id : ids) {
            assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? AND payloadtype "
                    + "LIKE '%OperatorRetryRequestedEvent' AND convert_from(metadata, 'UTF8') LIKE '%provider back up%'",
                    id)).as(id).isEqualTo(1);
        }
    }

    @Test
    void liveCountsByStateEqualACountOfTheReadModel() {
        start("tok_approve");
        start("tok_decline");
        DashboardSession operator = signedIn();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            java.util.Map<String, Long> expected = new java.util.TreeMap<>();
            jdbc.query("SELECT state, count(*) FROM checkout_summary GROUP BY state",
                    rs -> { expected.put(rs.getString(1), rs.getLong(2)); });
            java.util.Map<String, Long> shown = new java.util.TreeMap<>();
            operator.get("/dashboard/api/counts").json().path("byState").properties()
                    .forEach(e -> shown.put(e.getKey(), e.getValue().asLong()));
            assertThat(shown).isEqualTo(expected);
        });
    }

    /**
     * The cancel trap's labels (issue 52): a customer cancels while the payment is reconciled, the lookups run out.
     * The dashboard says a cancellation is pending and offers the operator's cancel; an operator's retry keeps the
     * lookups' evidence and its name stays on the retry (not on the automatic lookups that follow); money at risk counts
     * from the first unknown outcome; "Last failure" holds no PENDING answer; activity rows come in workflow order
     * with live leases only; the operator's cancel then compensates.
     */
    @Test
    void theCancelTrapIsShownAndEveryLabelSaysWhatHappened() {
        String id = trappedCheckout();
        DashboardSession operator = signedIn();

        JsonNode detail = operator.get("/dashboard/api/checkouts/" + id).json();
        JsonNode cancellation = detail.path("cancellation");
        assertThat(cancellation.path("pending").asBoolean()).as(detail.toString()).isTrue();
        assertThat(cancellation.path("reason").asText()).isEqualTo("customer_request");
        assertThat(cancellation.path("requestedBy").asText()).startsWith("tenant:");
        assertThat(cancellation.path("status").asText()).contains("an operator's cancel compensates");
        assertThat(actions(detail)).containsExactly("resolve-authorized", "resolve-declined", "retry", "cancel");

        JsonNode row = listRow(operator, id);
        assertThat(row.path("cancellationRequested").asBoolean()).isTrue();
        assertThat(row.path("cancelReason").asText()).isEqualTo("customer_request");
        assertThat(row.path("waitingReason").asText()).startsWith("waiting for an operator");

        // money at risk: unknown since the authorization timed out, not since the review began
        Instant unknownAt = eventTime(id, "PaymentOutcomeUnknownEvent");
        JsonNode risk = row; // money at risk's rows are the list's rows
        assertThat(Instant.parse(risk.path("unknownSince").asText())).isEqualTo(unknownAt);
        assertThat(risk.path("unknownForSeconds").asLong()).isGreaterThan(risk.path("inStateSeconds").asLong());

        // an operator's retry: the evidence stays beside it; its name only on the retry itself
        long version = detail.path("view").path("version").asLong();
        assertThat(operator.post("/dashboard/api/checkouts/" + id + "/actions", "{\"action\":\"retry\",\"version\":"
                + version + ",\"reason\":\"provider says try again\"}").status()).isEqualTo(202);
        JsonNode retried = operator.get("/dashboard/api/checkouts/" + id).json();
        String known = retried.path("view").path("waiting").path("known").asText();
        assertThat(known).contains("reconcile-payment: PENDING").doesNotContain("last answer: operator retry");
        await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM domainevententry WHERE "
                + "aggregateidentifier = ? AND payloadtype LIKE '%ManualReviewRequiredEvent'", id) == 2);
        JsonNode again = operator.get("/dashboard/api/checkouts/" + id).json();
        boolean afterRetry = false;
        for (JsonNode t : again.path("timeline")) {
            String type = t.path("type").asText();
            if (type.equals("OperatorRetryRequestedEvent")) {
                assertThat(t.path("who").asText()).startsWith("operator:");
                assertThat(t.path("why").asText()).isEqualTo("provider says try again");
                afterRetry = true;
            } else if (afterRetry && type.equals("PaymentReconciliationRequestedEvent")) {
                assertThat(t.path("who").isNull() || t.path("who").isMissingNode()).as(t.toString()).isTrue();
            }
        }
        assertThat(afterRetry).isTrue();

        // the operator's cancel compensates despite the customer's earlier one
        long reviewVersion = again.path("view").path("version").asLong();
        JsonNode preview = operator.post("/dashboard/api/checkouts/" + id + "/preview", "{\"action\":\"cancel\","
                + "\"version\":" + reviewVersion + ",\"reason\":\"customer asked\"}").json();
        assertThat(preview.path("operationIds").toString()).contains(id + "/void-payment");
        assertThat(operator.post("/dashboard/api/checkouts/" + id + "/actions", "{\"action\":\"cancel\",\"version\":"
                + reviewVersion + ",\"reason\":\"customer asked\"}").status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'cancelled'", id) == 1);
        JsonNode done = operator.get("/dashboard/api/checkouts/" + id).json();
        assertThat(actions(done)).isEmpty();
        List<String> steps = new ArrayList<>();
        for (JsonNode a : done.path("activities")) {
            steps.add(a.path("step").asText());
            assertThat(a.path("leaseExpiresAt").isNull() || a.path("leaseExpiresAt").isMissingNode())
                    .as("no lease on a finished step: %s", a).isTrue();
        }
        assertThat(steps).containsExactly("reserve-stock", "authorize-payment", "reconcile-payment", "void-payment",
                "release-stock");
        assertThat(done.path("activities").get(2).path("lastOutcome").asText()).doesNotContain("provider reported");
        assertThat(operator.get("/dashboard/api/checkouts/" + id + "/provider").json().path("checkoutSays").asText())
                .isEqualTo("VOIDED");
        assertThat(done.path("thresholds").path("manual_review").asText()).isEqualTo("3 s");
    }

    /** A completed checkout offers a partial refund and a cancel (a refund); once refunded the provider panel says so. */
    @Test
    void aRefundedPaymentIsShownRefundedAndAFinishedCheckoutOffersOnlyWhatItAllows() {
        String id = start("tok_approve");
        await().atMost(Duration.ofSeconds(30)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'completed'", id) == 1);
        DashboardSession operator = signedIn();
        JsonNode completed = operator.get("/dashboard/api/checkouts/" + id).json();
        assertThat(actions(completed)).containsExactly("refund", "cancel");
        long version = completed.path("view").path("version").asLong();
        assertThat(operator.post("/dashboard/api/checkouts/" + id + "/actions", "{\"action\":\"cancel\",\"version\":"
                + version + ",\"reason\":\"goods returned\"}").status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'cancelled'", id) == 1);
        JsonNode provider = operator.get("/dashboard/api/checkouts/" + id + "/provider").json();
        assertThat(provider.path("checkoutSays").asText()).as(provider.toString()).isEqualTo("REFUNDED");
        assertThat(provider.path("agreement").asText()).contains("refunded").doesNotContain("no contradiction");
        assertThat(provider.path("mismatch").asBoolean()).isFalse();
        JsonNode row = listRow(operator, id);
        assertThat(row.path("cancelReason").asText()).isEqualTo("operator_request");
        JsonNode done = operator.get("/dashboard/api/checkouts/" + id).json();
        assertThat(actions(done)).isEmpty();
        for (JsonNode t : done.path("timeline")) {
            String type = t.path("type").asText();
            if (type.equals("CheckoutCancellationRequestedEvent")) {
                assertThat(t.path("who").asText()).startsWith("operator:");
                assertThat(t.path("why").asText()).isEqualTo("goods returned");
            } else if (type.equals("PaymentRefundedEvent") || type.equals("CheckoutCancelledEvent")) {
                assertThat(t.path("who").isNull()).as("a worker's result is not the operator's act: %s", t).isTrue();
            }
        }
        List<String> steps = new ArrayList<>();
        done.path("activities").forEach(a -> steps.add(a.path("step").asText()));
        assertThat(steps).containsExactly("reserve-stock", "authorize-payment", "capture-payment", "send-receipt",
                "refund-payment",
                "release-stock", "send-cancellation-notice");
    }

    /**
     * The customer cancels once the authorization was requested, before the lookups run out; then the review. Under
     * load the cancel may land after the review (it then compensates at once: not the trap): up to three tries.
     */
    private String trappedCheckout() {
        for (int attempt = 1; attempt <= 3; attempt++) {
            String id = start("tok_unknown");
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).until(() -> count(
                    "SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? AND payloadtype LIKE "
                            + "'%PaymentAuthorizationRequestedEvent'", id) == 1);
            HttpApi.Response cancel = api.send("POST", "/api/v1/checkouts/" + id + "/cancel", HttpApi.DEMO_KEY,
                    java.util.Map.of(), "{\"reason\":\"changed my mind\"}");
            assertThat(cancel.status()).as(cancel.body()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(40)).until(() -> count("SELECT count(*) FROM domainevententry WHERE "
                    + "aggregateidentifier = ? AND payloadtype LIKE '%ManualReviewRequiredEvent'", id) == 1);
            if (eventTime(id, "CheckoutCancellationRequestedEvent").isBefore(eventTime(id, "ManualReviewRequiredEvent"))) {
                await().atMost(Duration.ofSeconds(20)).until(() -> count("SELECT count(*) FROM checkout_summary "
                        + "WHERE checkout_id = ? AND state = 'manual_review'", id) == 1);
                return id;
            }
        }
        throw new AssertionError("no customer cancel landed during reconciliation in three tries");
    }

    private Instant eventTime(String id, String type) {
        return Instant.parse(jdbc.queryForObject("SELECT timestamp FROM domainevententry WHERE aggregateidentifier = ? "
                + "AND payloadtype LIKE ? ORDER BY sequencenumber LIMIT 1", String.class, id, "%." + type));
    }

    private static List<String> actions(JsonNode detail) {
        List<String> out = new ArrayList<>();
        detail.path("actions").forEach(a -> out.add(a.path("value").asText()));
        return out;
    }

    private static JsonNode listRow(DashboardSession operator, String id) {
        JsonNode rows = operator.get("/dashboard/api/checkouts?q=" + id).json().path("rows");
        assertThat(rows).hasSize(1);
        return rows.get(0);
    }

    private DashboardSession signedIn() {
        DashboardSession s = new DashboardSession(port);
        assertThat(s.signIn("operator", HttpApi.OPERATOR_KEY)).doesNotContain("error");
        return s;
    }

    private String start(String token) {
        return api.startCheckout("dash-api-" + UUID.randomUUID(), HttpApi.checkoutBody("SKU-0202", 1, 1200, token))
                .json().get("checkoutId").asText();
    }
}
