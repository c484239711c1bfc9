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
