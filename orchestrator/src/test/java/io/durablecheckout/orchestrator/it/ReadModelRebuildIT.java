package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.FaultMatrix;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.config.EventProcessingConfiguration;
import io.durablecheckout.orchestrator.readmodel.CheckoutSummaryRebuild;
import io.durablecheckout.orchestrator.readmodel.CheckoutSummaryRepository;
import io.durablecheckout.orchestrator.readmodel.CheckoutView;
import io.durablecheckout.orchestrator.readmodel.CheckoutViewFolder;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.durablecheckout.orchestrator.it.support.HttpApi.checkoutBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rebuild of checkout_summary, by the processor (reset, replay every event) or offline, ends with exactly the rows
 * the live projection wrote, and those equal a plain event-by-event fold of each checkout's stream.
 */
class ReadModelRebuildIT extends IntegrationTestBase {

    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    @Autowired
    InventoryAdmin inventory;

    @Autowired
    EventStore eventStore;

    @Autowired
    CheckoutSummaryRebuild rebuild;

    @Autowired
    CheckoutSummaryRepository summaries;

    @Autowired
    org.axonframework.config.EventProcessingConfiguration processing;

    @Test
    void aRebuiltReadModelEqualsTheLiveOne() throws Exception {
        String sku = "S-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, 1_000);
        List<String> ids = new ArrayList<>();
        for (String token : List.of("tok_approve", "tok_approve", "tok_approve", "tok_decline", "tok_provider_down",
                "tok_approve", "tok_decline", "tok_approve")) {
            HttpApi.Response r = api.startCheckout("it-" + UUID.randomUUID(), checkoutBody(sku, 1, 1200, token));
            assertThat(r.status()).as(r.body()).isEqualTo(202);
            ids.add(r.json().get("checkoutId").asText());
        }
        api.send("POST", "/api/v1/checkouts/" + ids.get(0) + "/cancel", HttpApi.DEMO_KEY, Map.of(),
                "{\"reason\":\"changed my mind\"}");
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> ids.stream()
                .allMatch(id -> count("SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND terminal", id) == 1));
        // late webhooks (2.5 s after a decision, twice) may still append to these histories: compare once nothing
        // has been appended to them for longer than that, and the read model has folded everything
        await().atMost(Duration.ofSeconds(60)).during(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(500))
                .until(() -> count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ANY(?)",
                        (Object) ids.toArray(String[]::new)), new FaultMatrix.StableCount());
        await().atMost(Duration.ofSeconds(30)).until(() -> ids.stream().allMatch(this::upToDate));
        Map<String, Map<String, Object>> live = rows(ids);
        for (String id : ids) { // numbers compared as read back, not as the view's long fields
            assertThat(JSON.readTree(JSON.writeValueAsString(foldFromStore(id)))).as(id)
                    .isEqualTo(live.get(id).get("view"));
        }

        long head = count("SELECT max(globalindex) FROM domainevententry");
        StreamingEventProcessor processor = processing.eventProcessor(EventProcessingConfiguration.SUMMARY_PROCESSOR,
                StreamingEventProcessor.class).orElseThrow();
        processor.shutDown();
        try {
            processor.resetTokens();
            assertThat(count("SELECT count(*) FROM checkout_summary")).as("emptied by the reset").isZero();
        } finally {
            processor.start();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> !processor.processingStatus().isEmpty()
                && processor.processingStatus().values().stream()
                .allMatch(s -> s.getCurrentPosition().orElse(-1) >= head));

        assertThat(rows(ids)).isEqualTo(live);

        String path = "/api/v1/operator/read-models/checkout-summary/rebuild";
        assertThat(api.send("POST", path, HttpApi.DEMO_KEY, Map.of(), null).status()).isEqualTo(403);
        HttpApi.Response offline = api.send("POST", path, HttpApi.OPERATOR_KEY, Map.of(), null);
        assertThat(offline.status()).as(offline.body()).isEqualTo(200);
        assertThat(offline.json().get("rows").asInt()).isGreaterThanOrEqualTo(ids.size());
        assertThat(rows(ids)).as("offline rebuild").isEqualTo(live);
        // the processor carries on from the rebuild's position: a new checkout shows up, nothing is replayed twice
        HttpApi.Response next = api.startCheckout("it-" + UUID.randomUUID(), checkoutBody(sku, 1, 1200, "tok_approve"));
        String nextId = next.json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM checkout_summary "
                + "WHERE checkout_id = ? AND state = 'completed'", nextId) == 1);
        assertThat(rows(ids)).isEqualTo(live);
        assertInvariantsHold();
    }

    /**
     * Reads go on during a rebuild: held inside the rebuild's open transaction (the shadow table filled, the swap not
     * yet done), a read of a checkout and a list of waiting checkouts answer at once, with the rows as they were.
     * The swap then puts the rebuilt table in place under the same index names.
     */
    @Test
    void aReadDuringARebuildAnswersWhileTheRebuildTransactionIsOpen() throws Exception {
        String sku = "S-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, 100);
        HttpApi.Response started = api.startCheckout("it-" + UUID.randomUUID(), checkoutBody(sku, 1, 1200, "tok_approve"));
        String id = started.json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'completed'", id) == 1);
        List<String> indexesBefore = jdbc.queryForList("SELECT indexname FROM pg_indexes"
                + " WHERE tablename = 'checkout_summary' ORDER BY 1", String.class);
        String triggers = "SELECT tgname FROM pg_trigger WHERE tgrelid = 'checkout_summary'::regclass"
                + " AND NOT tgisinternal ORDER BY 1";
        List<String> triggersBefore = jdbc.queryForList(triggers, String.class);

        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch readsDone = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean inTransaction = new java.util.concurrent.atomic.AtomicBoolean();
        rebuild.beforeSwap(() -> {
            inTransaction.set(org.springframework.transaction.support.TransactionSynchronizationManager
                    .isActualTransactionActive());
            inside.countDown();
            try {
                readsDone.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        HttpApi.Response[] rebuilt = new HttpApi.Response[1];
        Thread operator = new Thread(() -> rebuilt[0] = api.send("POST",
                "/api/v1/operator/read-models/checkout-summary/rebuild", HttpApi.OPERATOR_KEY, Map.of(), null));
        try {
            operator.start();
            assertThat(inside.await(60, TimeUnit.SECONDS)).as("the rebuild reached its swap").isTrue();
            assertThat(inTransaction).as("held inside the rebuild's transaction").isTrue();

            long t0 = System.nanoTime();
            HttpApi.Response read = api.get("/api/v1/checkouts/" + id);
            HttpApi.Response waiting = api.get("/api/v1/checkouts?waiting=true&limit=10");
            long millis = (System.nanoTime() - t0) / 1_000_000;

            assertThat(read.status()).as(read.body()).isEqualTo(200);
            assertThat(read.json().get("state").asText()).isEqualTo("completed");
            assertThat(waiting.status()).as(waiting.body()).isEqualTo(200);
            // a blocked read would wait for the whole rebuild (here: until released, 30 s)
            assertThat(millis).as("two reads during the rebuild, ms").isLessThan(5_000);
        } finally {
            readsDone.countDown();
            operator.join(60_000);
            rebuild.beforeSwap(null);
        }
        assertThat(rebuilt[0].status()).as(rebuilt[0].body()).isEqualTo(200);
        assertThat(count("SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'completed'", id))
                .isEqualTo(1);
        assertThat(jdbc.queryForList("SELECT indexname FROM pg_indexes WHERE tablename = 'checkout_summary' ORDER BY 1",
                String.class)).isEqualTo(indexesBefore);
        assertThat(count("SELECT count(*) FROM pg_tables WHERE tablename = 'checkout_summary_rebuild'")).isZero();
        // the live table's triggers follow it, and what they keep (the dashboard's counts) matches the rebuilt rows
        assertThat(jdbc.queryForList(triggers, String.class)).isEqualTo(triggersBefore);
        assertThat(count("""
                SELECT count(*) FROM (SELECT tenant_id, state, count(*) AS n FROM checkout_summary GROUP BY 1, 2) s
                FULL JOIN (SELECT * FROM checkout_state_counts WHERE n <> 0) c USING (tenant_id, state)
                WHERE s.n IS DISTINCT FROM c.n""")).isZero();
    }

    /**
     * Lists and counts catch up on the read model's tick; a read by id does not wait for it: it folds, onto the row,
     * the events the row has not reached. Here the row is put back three events into the checkout (as a projection
     * a tick behind would hold it) and the read still answers with the checkout as its stream has it.
     */
    @Test
    void aReadByIdIsCurrentWhenTheRowIsBehindTheStream() {
        String sku = "S-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, 100);
        HttpApi.Response started = api.startCheckout("it-" + UUID.randomUUID(), checkoutBody(sku, 1, 1200, "tok_approve"));
        String id = started.json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'completed'", id) == 1
                && upToDate(id));
        long last = count("SELECT max(sequencenumber) FROM domainevententry WHERE aggregateidentifier = ?", id);
        CheckoutView[] behind = {null};
        eventStore.readEvents(id).asStream().limit(3).forEach(m -> behind[0] = CheckoutViewFolder.fold(behind[0],
                (CheckoutEvent) m.getPayload(), m.getSequenceNumber(), m.getTimestamp()));
        summaries.upsertAll(List.of(behind[0]));
        try {
            assertThat(count("SELECT version FROM checkout_summary WHERE checkout_id = ?", id)).isEqualTo(2);
            HttpApi.Response read = api.get("/api/v1/checkouts/" + id);
            assertThat(read.status()).as(read.body()).isEqualTo(200);
            assertThat(read.json().get("state").asText()).isEqualTo("completed");
            assertThat(read.json().get("version").asLong()).isGreaterThanOrEqualTo(last);
            HttpApi.Response operator = api.send("GET", "/api/v1/checkouts/" + id, HttpApi.OPERATOR_KEY, Map.of(), null);
            assertThat(operator.json().get("version").asLong()).as(operator.body()).isGreaterThanOrEqualTo(last);
        } finally {
            summaries.upsertAll(List.of(foldFromStore(id))); // the projection has nothing new to fold it with
        }
    }

    private boolean upToDate(String id) {
        return count("SELECT version FROM checkout_summary WHERE checkout_id = ?", id)
                == count("SELECT max(sequencenumber) FROM domainevententry WHERE aggregateidentifier = ?", id);
    }

    private CheckoutView foldFromStore(String id) {
        CheckoutView[] view = {null};
        eventStore.readEvents(id).asStream().forEach(m -> view[0] = CheckoutViewFolder.fold(view[0],
                (CheckoutEvent) m.getPayload(), m.getSequenceNumber(), m.getTimestamp()));
        return view[0];
    }

    private Map<String, Map<String, Object>> rows(List<String> ids) {
        Map<String, Map<String, Object>> rows = new java.util.TreeMap<>();
        jdbc.query("""
                SELECT checkout_id, tenant_id, state, version, terminal, waiting_reason, next_deadline, view::text,
                       created_at, updated_at
                FROM checkout_summary WHERE checkout_id = ANY(?)""", rs -> {
            Map<String, Object> row = new java.util.LinkedHashMap<>();
            for (String c : List.of("tenant_id", "state", "version", "terminal", "waiting_reason", "next_deadline",
                    "created_at", "updated_at")) {
                row.put(c, rs.getObject(c));
            }
            try {
                row.put("view", JSON.readTree(rs.getString("view")));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            rows.put(rs.getString("checkout_id"), row);
        }, (Object) ids.toArray(String[]::new));
        assertThat(rows).hasSize(ids.size());
        return rows;
    }
}
