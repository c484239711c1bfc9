package io.durablecheckout.orchestrator.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.activities.payments.WebhookSecret;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.it.support.DashboardSession;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import io.durablecheckout.orchestrator.it.support.StandardWebhooksSigner;
import io.durablecheckout.orchestrator.replay.CheckoutReplayer;
import io.durablecheckout.orchestrator.replay.HistoryBundle;
import io.durablecheckout.orchestrator.replay.ReplayReport;
import io.durablecheckout.orchestrator.replay.StoredHistories;
import io.durablecheckout.orchestrator.retention.EventArchiver;
import io.durablecheckout.orchestrator.retention.RetentionProperties;
import io.durablecheckout.orchestrator.tenancy.ApiKeys;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.axonframework.serialization.Serializer;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.transaction.support.TransactionTemplate;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Issue 51, Build 6 and acceptance 3 (second half): a finished checkout's events move to the archive; it still
 * replays identically, shows in the API and the dashboard with its whole history, a retried submission with the same
 * Idempotency-Key lands on it (never a second checkout), its personal data is erased, and a later cancel still runs
 * as on a live checkout. The retention is tiny here (the tenant's own, set through the admin API; its own archiver, on
 * this test's own tenant only).
 */
class RetentionIT extends IntegrationTestBase {

    @Autowired
    InventoryAdmin inventory;

    @Autowired
    ApiKeys apiKeys;

    @Autowired
    EventArchiver productArchiver;

    @Autowired
    TransactionTemplate transactions;

    @Autowired
    Serializer serializer;

    @Autowired
    Clock clock;

    @Autowired
    WebhookSecret webhookSecret;

    @Test
    void anArchivedCheckoutReplaysShowsAnswersItsRetryIsErasedAndStillCancels() throws Exception {
        String tenant = "retention-" + UUID.randomUUID().toString().substring(0, 8);
        apiKeys.createTenant(tenant, "Retention shop");
        String key = apiKeys.issue(tenant, EnumSet.of(Caller.Role.TENANT), "retention-it", "test").key();
        String sku = "RET-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId(tenant), sku, 10);
        String idempotencyKey = "ret-" + UUID.randomUUID();
        String body = HttpApi.checkoutBody(sku, 1, 2500, "tok_approve").replace("a@example.com", "keep@example.org");

        HttpApi.Response created = submit(key, idempotencyKey, body);
        assertThat(created.status()).as(created.body()).isEqualTo(202);
        String id = created.json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> "completed".equals(get(key, id).json().path("state").asText()));
        // the read model has folded the last event (the archiver moves nothing before)
        await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT count(*) FROM checkout_summary s WHERE "
                + "checkout_id = ? AND version = (SELECT max(sequencenumber) FROM domainevententry WHERE "
                + "aggregateidentifier = s.checkout_id)", id) == 1);
        long events = hot(id);
        assertThat(events).isGreaterThan(5);
        List<String> historyBefore = types(get(key, id + "/history").json());
        JsonNode replayBefore = get(key, id + "/replay").json();
        assertThat(replayBefore.get("verdict").asText()).isEqualTo("identical");
        DashboardSession operator = new DashboardSession(port);
        assertThat(operator.signIn("operator", HttpApi.OPERATOR_KEY)).doesNotContain("error");
        JsonNode detailBefore = DashboardSession.parse(operator.get("/dashboard/api/checkouts/" + id).body());

        // the product's defaults (120-day chargeback window) keep a checkout that just finished in the hot table
        assertThat(productArchiver.archive(clock.instant(), tenant).checkouts()).isZero();
        assertThat(hot(id)).isEqualTo(events);

        // a tiny retention, the tenant's own set through the admin API (the default here is ten years and the
        // chargeback window zero): moved once every processor has passed its events (and a margin of 5 indexes)
        HttpApi.Response retention = api.send("PUT", "/api/v1/admin/tenants/" + tenant + "/retention",
                AdminApiIT.ADMIN_KEY, Map.of(), "{\"days\":0,\"reason\":\"retention test\"}");
        assertThat(retention.status()).as(retention.body()).isEqualTo(200);
        EventArchiver archiver = new EventArchiver(jdbc, transactions, serializer,
                new RetentionProperties(true, Duration.ZERO, Duration.ofDays(3650), 5L, 10, 10, Duration.ofHours(1)));
        EventArchiver.Result[] result = {null};
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            result[0] = archiver.archive(clock.instant().plusSeconds(1), tenant);
            submitOther(); // later events move every processor's position past the margin
            assertThat(result[0].checkouts()).as(result[0].toString()).isEqualTo(1);
        });
        // every check below runs, so one run against a broken archive shows each that fails
        SoftAssertions softly = new SoftAssertions();
        softly.assertThat(result[0].events()).isEqualTo((int) events);
        softly.assertThat(hot(id)).as("the checkout's events left the hot table").isZero();
        softly.assertThat(count("SELECT count(*) FROM domainevententry_archive WHERE aggregateidentifier = ?", id))
                .isEqualTo(events);
        softly.assertThat(count("SELECT count(*) FROM archived_checkouts WHERE checkout_id = ? AND tenant_id = ?", id,
                tenant)).isEqualTo(1);

        // replay: identical, over the API and from its bundle, with the same timeline as before
        HttpApi.Response replay = get(key, id + "/replay");
        softly.assertThat(replay.status()).as("replay: " + replay.body()).isEqualTo(200);
        softly.assertThat(replay.json().path("verdict").asText()).as(replay.body()).isEqualTo("identical");
        softly.assertThat(replay.json().path("timeline")).as("replay's timeline").isEqualTo(replayBefore.get("timeline"));
        HttpApi.Response bundle = get(key, id + "/bundle");
        softly.assertThat(bundle.status()).as("bundle: " + bundle.body()).isEqualTo(200);
        if (bundle.status() == 200) {
            StoredHistories.History read = HistoryBundle.read(new ByteArrayInputStream(
                    bundle.body().getBytes(StandardCharsets.UTF_8)));
            softly.assertThat(read.events()).hasSize((int) events);
            ReplayReport report = new CheckoutReplayer().replay(read);
            softly.assertThat(report.verdict()).as(report.render()).isEqualTo(ReplayReport.Verdict.IDENTICAL);
        }

        // the API and the dashboard show it with its whole history
        softly.assertThat(get(key, id).json().path("state").asText()).isEqualTo("completed");
        softly.assertThat(types(get(key, id + "/history").json())).as("the API's history").isEqualTo(historyBefore);
        HttpApi.Response detail = operator.get("/dashboard/api/checkouts/" + id);
        softly.assertThat(detail.status()).as(detail.body()).isEqualTo(200);
        JsonNode shown = DashboardSession.parse(detail.body());
        softly.assertThat(shown.path("view").path("state").asText()).isEqualTo("completed");
        softly.assertThat(shown.path("timeline")).as("the dashboard's timeline").isEqualTo(detailBefore.get("timeline"));

        // the read model's offline rebuild keeps it: it reads the archive too
        HttpApi.Response rebuilt = api.send("POST", "/api/v1/operator/read-models/checkout-summary/rebuild",
                HttpApi.OPERATOR_KEY, Map.of(), null);
        softly.assertThat(rebuilt.status()).as(rebuilt.body()).isEqualTo(200);
        softly.assertThat(count("SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'completed' "
                + "AND version = ?", id, events - 1)).as("the summary row after a rebuild").isEqualTo(1);

        // idempotency: the same request with the same key lands on the same checkout, never a second one
        HttpApi.Response retried = submit(key, idempotencyKey, body);
        softly.assertThat(retried.status()).as(retried.body()).isEqualTo(202);
        softly.assertThat(retried.header("Idempotent-Replayed")).as("replayed").isEqualTo("true");
        softly.assertThat(retried.json().path("checkoutId").asText()).as("the retry's checkout").isEqualTo(id);
        softly.assertThat(retried.json().path("state").asText()).isEqualTo("completed");
        softly.assertThat(hot(id)).as("no new first event in the hot table").isZero();
        HttpApi.Response reused = submit(key, idempotencyKey, body.replace("2500", "2600"));
        softly.assertThat(reused.status()).as(reused.body()).isEqualTo(422); // as for a live checkout
        softly.assertThat(count("SELECT count(*) FROM domain_events_all WHERE type = 'Checkout' AND sequencenumber = 0 "
                + "AND aggregateidentifier IN (SELECT checkout_id FROM checkout_summary WHERE tenant_id = ?)", tenant))
                .as("checkouts of the tenant").isEqualTo(1);
        // the provider's late notification of the authorization: delivered to the checkout, as for a live one
        String notification = "{\"eventId\":\"evt-" + UUID.randomUUID() + "\",\"operationId\":\"" + id
                + "/authorize-payment\",\"status\":\"AUTHORIZED\",\"reference\":\"SIM-LATE\",\"tenantId\":\"" + tenant
                + "\",\"amountMinor\":2500,\"currency\":\"EUR\",\"occurredAt\":\"2026-01-01T00:00:00Z\"}";
        HttpApi.Response notified = notify(notification);
        softly.assertThat(notified.status()).as("notification: " + notified.body()).isEqualTo(202);
        softly.assertThat(notified.json().path("result").asText()).as(notified.body()).isEqualTo("delivered");
        softly.assertThat(get(key, id).json().path("state").asText()).isEqualTo("completed");

        // erasure: the key goes, the archived history shows the fields erased
        HttpApi.Response erased = api.send("POST", "/api/v1/operator/checkouts/" + id + "/erase-personal-data",
                HttpApi.OPERATOR_KEY, Map.of(), "{\"reason\":\"retention test\"}");
        softly.assertThat(erased.status()).as(erased.body()).isEqualTo(200);
        softly.assertThat(erased.json().path("alreadyErased").asBoolean()).isFalse();
        softly.assertThat(get(key, id).json().path("customerEmail").asText()).isEqualTo("[erased]");
        softly.assertThat(get(key, id + "/history").body()).as("the history after erasure")
                .doesNotContain("keep@example.org").contains("[erased]").contains("CheckoutCompletedEvent");
        HttpApi.Response afterErasure = submit(key, idempotencyKey, body);
        softly.assertThat(afterErasure.status()).as(afterErasure.body()).isEqualTo(409); // as for a live erased one
        softly.assertThat(afterErasure.body()).contains("personal-data-erased");
        softly.assertAll();

        // a cancel is decided on the archived events, as for a live checkout: refunded, its new events hot
        HttpApi.Response cancel = api.send("POST", "/api/v1/checkouts/" + id + "/cancel", key, Map.of(),
                "{\"reason\":\"changed my mind\"}");
        assertThat(cancel.status()).as(cancel.body()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> "cancelled".equals(get(key, id).json().path("state").asText()));
        assertThat(count("SELECT min(sequencenumber) FROM domainevententry WHERE aggregateidentifier = ?", id))
                .isEqualTo(events);
        assertThat(types(get(key, id + "/history").json())).startsWith(historyBefore.toArray(String[]::new))
                .contains("PaymentRefundedEvent");
        JsonNode replayed = get(key, id + "/replay").json();
        assertThat(replayed.get("verdict").asText()).as(replayed.path("report").asText()).isEqualTo("identical");
        // finished again: its new events follow the old ones into the archive
        int total = types(get(key, id + "/history").json()).size();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            EventArchiver.Result again = archiver.archive(clock.instant().plusSeconds(1), tenant);
            submitOther();
            assertThat(hot(id)).as(again.toString()).isZero();
        });
        assertThat(count("SELECT count(*) FROM domainevententry_archive WHERE aggregateidentifier = ?", id))
                .isEqualTo(total);
        assertThat(count("SELECT events FROM archived_checkouts WHERE checkout_id = ?", id)).isEqualTo(total);
        // and below the service: the store itself refuses a first event for the archived checkout (last: the refused
        // insert leaves a gap in every processor's token, which holds the archive below it)
        assertThatThrownBy(() -> jdbc.update("INSERT INTO domainevententry (aggregateidentifier, "
                + "sequencenumber, type, eventidentifier, payload, payloadtype, timestamp) VALUES (?, 0, 'Checkout', ?, "
                + "'\\x7b7d', 'x', 'now')", id, UUID.randomUUID().toString()))
                .isInstanceOf(DataIntegrityViolationException.class).hasMessageContaining("archived");

        assertInvariantsHold();
    }

    private HttpApi.Response notify(String body) throws Exception {
        long now = clock.instant().getEpochSecond();
        String signature = StandardWebhooksSigner.signature(webhookSecret.value(), StandardWebhooksSigner.idOf(body),
                now, body);
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port
                + "/api/v1/payment-callbacks")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        StandardWebhooksSigner.headers(StandardWebhooksSigner.idOf(body), now, signature).forEach(b::header);
        HttpResponse<String> r = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new HttpApi.Response(r.statusCode(), r.headers().map(), r.body());
    }

    private HttpApi.Response submit(String key, String idempotencyKey, String body) {
        return api.send("POST", "/api/v1/checkouts", key, Map.of("Idempotency-Key", idempotencyKey), body);
    }

    private HttpApi.Response get(String key, String path) {
        return api.send("GET", "/api/v1/checkouts/" + path, key, Map.of(), null);
    }

    private void submitOther() {
        api.startCheckout("ret-other-" + UUID.randomUUID(), HttpApi.checkoutBody("SKU-0303", 1, 900, "tok_approve"));
    }

    private long hot(String id) {
        return count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?", id);
    }

    private static List<String> types(JsonNode history) {
        List<String> types = new ArrayList<>();
        (history.isArray() ? history : history.path("events")).forEach(e -> types.add(e.path("type").asText()));
        return types;
    }
}
