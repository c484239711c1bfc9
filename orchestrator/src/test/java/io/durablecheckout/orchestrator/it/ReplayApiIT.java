package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.config.AxonInfrastructureConfiguration;
import io.durablecheckout.orchestrator.replay.CheckoutReplayer;
import io.durablecheckout.orchestrator.serialization.EventUpcasters;
import io.durablecheckout.orchestrator.replay.BundleFormatTest;
import io.durablecheckout.orchestrator.replay.HistoryBundle;
import io.durablecheckout.orchestrator.replay.ReplayReport;
import io.durablecheckout.orchestrator.replay.StoredHistories;
import io.durablecheckout.orchestrator.tenancy.ApiKeys;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.durablecheckout.orchestrator.it.support.HttpApi.checkoutBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Time travel, replay and bundles over the HTTP API, and old event revisions read back from PostgreSQL. */
class ReplayApiIT extends IntegrationTestBase {

    @Autowired
    InventoryAdmin inventory;

    @Autowired
    ApiKeys apiKeys;

    @Autowired
    EventStore eventStore;

    @Autowired
    StoredHistories histories;

    @Autowired
    javax.sql.DataSource dataSource;

    @Test
    void timeTravelShowsTheStateAfterEachEventAndWhatItChanged() {
        String id = completed("tok_approve");
        JsonNode history = api.get("/api/v1/checkouts/" + id + "/history").json();
        // plain shapes: ids are strings, not {"value": ...}
        assertThat(history.get(0).get("payload").get("checkoutId").asText()).isEqualTo(id);
        assertThat(history.get(1).get("payload").get("lease").get("fencingToken").asLong()).isEqualTo(1);

        JsonNode created = api.get("/api/v1/checkouts/" + id + "/history/0/state").json();
        assertThat(created.get("type").asText()).isEqualTo("CheckoutCreatedEvent");
        assertThat(created.get("state").get("state").asText()).isEqualTo("created");
        assertThat(created.get("event").get("checkoutId").asText()).isEqualTo(id);
        assertThat(created.get("links").has("previous")).isFalse();

        JsonNode reserved = api.get("/api/v1/checkouts/" + id + "/history/2/state").json();
        assertThat(reserved.get("type").asText()).isEqualTo("StockReservedEvent");
        // the seed's state machine: stock_reserved once the stock is reserved, as the aggregate's own fold says
        assertThat(reserved.get("state").get("state").asText()).isEqualTo("stock_reserved");
        List<String> changes = new java.util.ArrayList<>();
        reserved.get("changes").forEach(c -> changes.add(c.asText()));
        assertThat(changes).contains("state: \"created\" -> \"stock_reserved\"");
        assertThat(reserved.get("links").get("next").asText()).endsWith("/history/3/state");
        JsonNode authorizing = api.get("/api/v1/checkouts/" + id + "/history/3/state").json();
        assertThat(authorizing.get("type").asText()).isEqualTo("PaymentAuthorizationRequestedEvent");
        assertThat(authorizing.get("state").get("state").asText()).isEqualTo("stock_reserved");

        int last = history.size() - 1;
        JsonNode end = api.get("/api/v1/checkouts/" + id + "/history/" + last + "/state").json();
        assertThat(end.get("state").get("state").asText()).isEqualTo("completed");

        assertThat(api.get("/api/v1/checkouts/" + id + "/history/" + (last + 1) + "/state").status()).isEqualTo(404);
        HttpApi.Response bad = api.get("/api/v1/checkouts/" + id + "/history/two/state");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.header("Content-Type")).contains("application/problem+json");

        // another tenant: the checkout does not exist
        String other = "replay-other-" + UUID.randomUUID().toString().substring(0, 8);
        apiKeys.createTenant(other, "Other tenant");
        String otherKey = apiKeys.issue(other, EnumSet.of(Caller.Role.TENANT), "replay-it", "test").key();
        for (String path : List.of("/history/0/state", "/replay", "/bundle")) {
            assertThat(api.send("GET", "/api/v1/checkouts/" + id + path, otherKey, Map.of(), null).status())
                    .as(path).isEqualTo(404);
        }
    }

    @Test
    void aCheckoutReplaysOverTheApiAndItsBundleIsRedactedAndReplaysTheSame() throws Exception {
        String id = completed("tok_timeout_then_approve");
        JsonNode replay = api.get("/api/v1/checkouts/" + id + "/replay").json();
        assertThat(replay.get("verdict").asText()).as(replay.path("report").asText()).isEqualTo("identical");
        assertThat(replay.get("timeline").size()).isGreaterThan(3);

        HttpApi.Response bundle = api.get("/api/v1/checkouts/" + id + "/bundle");
        assertThat(bundle.status()).isEqualTo(200);
        assertThat(bundle.header("Content-Disposition")).contains("checkout-" + id + ".json");
        assertThat(bundle.body()).doesNotContain("a@example.com").doesNotContain("tok_timeout_then_approve")
                .contains(HistoryBundle.REDACTED).contains("\"policy\"").contains("replay.input");
        JsonNode json = new ObjectMapper().readTree(bundle.body());
        assertThat(json.get("format").asText()).isEqualTo(HistoryBundle.FORMAT);

        StoredHistories.History read = HistoryBundle.read(
                new ByteArrayInputStream(bundle.body().getBytes(StandardCharsets.UTF_8)));
        ReplayReport report = new CheckoutReplayer().replay(read);
        assertThat(report.verdict()).as(report.render()).isEqualTo(ReplayReport.Verdict.IDENTICAL);
    }

    /**
     * One JSON dialect (issue 26, acceptance 4): the README walkthrough's checkout, as the API shows its history and
     * its replay, as its bundle holds it, and as the command line replays that bundle, has no value object in the
     * stored shape ({@code {"value": ...}}) and no number with an exponent; durations are ISO-8601.
     */
    @Test
    void theWalkthroughCheckoutPrintsInOneDialectEverywhere() throws Exception {
        // the README's request, with a key of its own
        HttpApi.Response started = api.startCheckout("order-1001-" + UUID.randomUUID(), "{\"items\":[{\"sku\":"
                + "\"SKU-0001\",\"quantity\":2}],\"amount\":{\"minor\":3998,\"currency\":\"EUR\"},"
                + "\"paymentToken\":\"tok_approve\",\"customerEmail\":\"a@example.com\"}");
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        String id = started.json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> api.get("/api/v1/checkouts/" + id),
                        x -> x.status() == 200 && "completed".equals(x.json().get("state").asText()));

        HttpApi.Response history = api.get("/api/v1/checkouts/" + id + "/history");
        BundleFormatTest.assertOneJsonDialect(history.body());
        assertThat(history.json().get(0).get("payload").get("policy").get("leaseDuration").asText())
                .matches("PT[0-9.]+[SM]");
        HttpApi.Response replay = api.get("/api/v1/checkouts/" + id + "/replay");
        assertThat(replay.json().get("verdict").asText()).isEqualTo("identical");
        BundleFormatTest.assertOneJsonDialect(replay.body());
        BundleFormatTest.assertOneTextDialect(replay.json().get("report").asText());
        HttpApi.Response bundle = api.get("/api/v1/checkouts/" + id + "/bundle");
        BundleFormatTest.assertOneJsonDialect(bundle.body());
        assertThat(new ObjectMapper().readTree(bundle.body()).get("policy").get("leaseDuration").asText())
                .matches("PT[0-9.]+[SM]");

        // the command line: replay --file of that bundle prints its report in the same dialect
        java.nio.file.Path file = java.nio.file.Files.createTempFile(java.nio.file.Path.of("target"), "walkthrough-",
                ".json");
        java.nio.file.Files.writeString(file, bundle.body());
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(
                org.slf4j.Logger.ROOT_LOGGER_NAME);
        ch.qos.logback.classic.Level level = root.getLevel(); // the command quiets logging: this JVM's, here
        int code;
        try {
            code = io.durablecheckout.orchestrator.replay.ReplayCommand.run(
                new String[]{"replay", "--file", file.toString()}, new java.io.PrintStream(out, true,
                        StandardCharsets.UTF_8), System.err, dir -> {
                    throw new AssertionError("a bundle needs no database");
                });
        } finally {
            root.setLevel(level);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(code).as(printed).isZero();
        assertThat(printed).contains("verdict: IDENTICAL");
        BundleFormatTest.assertOneTextDialect(printed);
    }

    /** Acceptance: an event stored at revision 1 is read at revision 2 through the upcaster, on PostgreSQL. */
    @Test
    void retriesStoredAtRevisionOneAreReadAtRevisionTwoAndStillReplay() {
        String id = completed("tok_provider_down");
        long retries = count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? "
                + "AND payloadtype = ?", id, ActivityRetryScheduledEvent.class.getName());
        assertThat(retries).isPositive();
        List<String> failures = retries(id).stream().map(ActivityRetryScheduledEvent::lastFailure).toList();
        assertThat(failures).allSatisfy(f -> assertThat(f).isNotBlank());

        // rewrite them as revision 1 wrote them: no revision, the field still called "detail"
        int rewritten = jdbc.update("UPDATE domainevententry SET payloadrevision = NULL, payload = convert_to("
                + "replace(convert_from(payload, 'UTF8'), '\"lastFailure\"', '\"detail\"'), 'UTF8') "
                + "WHERE aggregateidentifier = ? AND payloadtype = ?", id, ActivityRetryScheduledEvent.class.getName());
        assertThat(rewritten).isEqualTo(retries);
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? AND payloadrevision "
                + "IS NULL AND convert_from(payload, 'UTF8') LIKE '%\"detail\"%'", id)).isEqualTo(retries);

        // read back through Axon's event store: revision 2, the failure under its new name
        assertThat(retries(id).stream().map(ActivityRetryScheduledEvent::lastFailure).toList()).isEqualTo(failures);
        // and the whole history still replays identically (the replayer reads through the same upcasters)
        ReplayReport report = new CheckoutReplayer().replay(histories.load(id));
        assertThat(report.verdict()).as(report.render()).isEqualTo(ReplayReport.Verdict.IDENTICAL);
    }

    /**
     * The bulk read behind {@code replay --all}: every checkout exactly once, in id order, each with its whole
     * history, across many chunks (two checkouts a query here), and {@code --since} keeps exactly the later ones.
     */
    @Test
    void theBulkReadVisitsEveryCheckoutOnceWithItsWholeHistoryAndHonoursSince() {
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(completed("tok_approve"));
        }
        StoredHistories chunked = new StoredHistories(dataSource, AxonInfrastructureConfiguration.strictEventSerializer(),
                EventUpcasters.chain(), 2);
        Map<String, StoredHistories.History> all = new java.util.LinkedHashMap<>();
        chunked.forEachRaw(null, h -> assertThat(all.put(h.checkoutId(), h)).as("%s twice", h.checkoutId()).isNull());
        assertThat(List.copyOf(all.keySet())).containsAll(ids).isSorted().hasSize((int) chunked.count(null));
        for (String id : ids) {
            StoredHistories.History one = histories.load(id);
            StoredHistories.History bulk = chunked.history(id, all.get(id).rows());
            assertThat(bulk.events()).extracting(e -> e.sequence())
                    .containsExactlyElementsOf(one.events().stream().map(e -> e.sequence()).toList());
            assertThat(bulk.events()).extracting(e -> e.payload())
                    .containsExactlyElementsOf(one.events().stream().map(e -> e.payload()).toList());
        }

        // the command line's bulk replay over the same reader: every history read, every one identical
        io.durablecheckout.orchestrator.replay.ReplayCommand.Summary summary =
                io.durablecheckout.orchestrator.replay.ReplayCommand.replayAll(chunked, null, 2, all.size(), null);
        assertThat(summary.histories()).isEqualTo(all.size());
        assertThat(summary.failed()).extracting(ReplayReport::render).isEmpty();
        assertThat(summary.identical()).isEqualTo(all.size());

        java.time.Instant since = histories.load(ids.get(2)).rows().get(0).getTimestamp();
        List<String> later = new java.util.ArrayList<>();
        chunked.forEachRaw(since, h -> later.add(h.checkoutId()));
        assertThat(later).contains(ids.get(2), ids.get(3), ids.get(4)).doesNotContain(ids.get(0), ids.get(1))
                .allSatisfy(id -> assertThat(all.get(id).rows().get(0).getTimestamp()).isAfterOrEqualTo(since));
        // exactly the checkouts whose first event is not before `since`, in the same order
        assertThat(later.stream().filter(all::containsKey).toList()).containsExactlyElementsOf(all.values().stream()
                .filter(h -> !h.rows().get(0).getTimestamp().isBefore(since))
                .map(StoredHistories.History::checkoutId).toList());
    }

    private List<ActivityRetryScheduledEvent> retries(String id) {
        return eventStore.readEvents(id).asStream().map(DomainEventMessage::getPayload)
                .filter(ActivityRetryScheduledEvent.class::isInstance).map(ActivityRetryScheduledEvent.class::cast)
                .toList();
    }

    private String completed(String paymentToken) {
        String sku = "RA-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, 10);
        HttpApi.Response r = api.startCheckout("replay-api-" + UUID.randomUUID(), checkoutBody(sku, 1, 1500,
                paymentToken));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        String id = r.json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> api.get("/api/v1/checkouts/" + id),
                        x -> x.status() == 200 && "completed".equals(x.json().get("state").asText()));
        return id;
    }
}
