package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.replay.CheckoutReplayer;
import io.durablecheckout.orchestrator.replay.HistoryBundle;
import io.durablecheckout.orchestrator.replay.ReplayReport;
import io.durablecheckout.orchestrator.replay.StoredHistories;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.durablecheckout.orchestrator.it.support.HttpApi.checkoutBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs after every other integration test of the JVM (class order) and replays every checkout history they left in
 * the shared PostgreSQL with today's decision code: each must be identical. With {@code -Dreplay.corpus.record=true}
 * it also writes one bundle per distinct path (sequence of event types) into the replay corpus, which the unit test
 * {@code ReplayCorpusTest} replays on every build (docs/replay.md, "Recording the corpus").
 */
@Order(Integer.MAX_VALUE - 1) // before LogHygieneIT, after the rest
class ReplayCorpusIT extends IntegrationTestBase {

    static final Path CORPUS = Path.of("src/test/resources/replay-corpus");

    @Autowired
    StoredHistories histories;

    @Autowired
    InventoryAdmin inventory;

    private final CheckoutReplayer replayer = new CheckoutReplayer();

    @Test
    void everyHistoryInTheStoreReplaysIdenticallyWithTodaysCode() throws Exception {
        // a few paths of its own, in case it runs alone, and the operator paths no other test walks to the end
        String sku = "R-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, 20);
        List<String> own = new ArrayList<>();
        for (String token : List.of("tok_approve", "tok_decline", "tok_timeout_then_approve")) {
            own.add(start(sku, token));
        }
        String declinedByOperator = start(sku, "tok_unknown");
        String retriedThenCancelled = start(sku, "tok_unknown");
        own.add(declinedByOperator);
        own.add(retriedThenCancelled);

        operator(declinedByOperator, "resolve", awaitState(declinedByOperator, "manual_review"),
                "{\"resolution\":\"declined\",\"reason\":\"provider has no such payment\"}");
        operator(retriedThenCancelled, "retry", awaitState(retriedThenCancelled, "manual_review"),
                "{\"reason\":\"provider says try again\"}");
        await().atMost(Duration.ofSeconds(30)).until(() -> history(retriedThenCancelled).contains("OperatorRetryRequestedEvent")
                && "manual_review".equals(api.get("/api/v1/checkouts/" + retriedThenCancelled).json().path("state").asText()));
        operator(retriedThenCancelled, "cancel", awaitState(retriedThenCancelled, "manual_review"),
                "{\"reason\":\"customer gave up\"}");
        for (String id : own) {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> api.get("/api/v1/checkouts/" + id), r -> r.status() == 200 && isTerminal(r.json()));
        }

        List<ReplayReport> failed = new ArrayList<>();
        Map<String, StoredHistories.History> byPath = new LinkedHashMap<>();
        int[] replayed = {0};
        histories.forEach(null, history -> {
            replayed[0]++;
            ReplayReport report = replayer.replay(history);
            if (!report.identical()) {
                failed.add(report);
            }
            byPath.putIfAbsent(String.join(">", history.events().stream().map(e -> e.type()).toList()), history);
        });

        assertThat(replayed[0]).isGreaterThanOrEqualTo(own.size());
        assertThat(failed).as(() -> failed.stream().map(ReplayReport::render).reduce("", String::concat)).isEmpty();

        if (Boolean.getBoolean("replay.corpus.record")) {
            Files.createDirectories(CORPUS);
            for (Map.Entry<String, StoredHistories.History> e : byPath.entrySet()) {
                StoredHistories.History h = e.getValue();
                String last = h.events().get(h.events().size() - 1).type().replace("Event", "");
                String name = last + "-" + shortHash(e.getKey()) + ".json";
                HistoryBundle.write(HistoryBundle.export(h, Instant.parse("2026-01-01T00:00:00Z")),
                        CORPUS.resolve(name));
            }
        }
    }

    private String start(String sku, String token) {
        HttpApi.Response r = api.startCheckout("replay-" + UUID.randomUUID(), checkoutBody(sku, 1, 1500, token));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("checkoutId").asText();
    }

    private JsonNode awaitState(String id, String state) {
        return await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> api.get("/api/v1/checkouts/" + id),
                        r -> r.status() == 200 && state.equals(r.json().get("state").asText())).json();
    }

    private void operator(String id, String action, JsonNode view, String body) {
        HttpApi.Response r = api.send("POST", "/api/v1/operator/checkouts/" + id + "/" + action, HttpApi.OPERATOR_KEY,
                Map.of("If-Match", "\"" + view.get("version").asLong() + "\""), body);
        assertThat(r.status()).as(r.body()).isEqualTo(202);
    }

    private List<String> history(String id) {
        List<String> types = new ArrayList<>();
        api.get("/api/v1/checkouts/" + id + "/history").json().forEach(e -> types.add(e.get("type").asText()));
        return types;
    }

    private static boolean isTerminal(JsonNode view) {
        String state = view.path("state").asText();
        return state.equals("completed") || state.equals("cancelled");
    }

    private static String shortHash(String text) throws Exception {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest, 0, 4);
    }
}
