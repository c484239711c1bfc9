package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.NodeProcess;
import io.durablecheckout.orchestrator.it.support.StandardWebhooksSigner;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Acceptance 3 of issue 13: a provider notification that arrives while a checkout is in manual review is kept as
 * evidence (an event in the checkout's history), shown to the operator, survives a kill -9 and restart of the
 * process, and is applied when the operator resolves the review as authorized without typing the reference.
 */
class ManualReviewEvidenceIT {

    /** tok_unknown: the first answer times out, every lookup answers PENDING, the one allowed lookup runs out. */
    static final String SECRET = "evidence-it-webhook-secret-0123456789abcdef"; // at least 32 characters
    static final List<String> NODE_ARGS = List.of(
            "--checkout.payments.webhook-secret=" + SECRET,
            "--checkout.payments.request-timeout=1s",
            "--checkout.simulator.timeout-delay=2s",
            "--checkout.workflow.reconciliation-initial-delay=200ms",
            "--checkout.workflow.reconciliation-max-lookups=1");

    static EmbeddedPostgresServer postgres;

    @BeforeAll
    static void database() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "evidence-pg-");
        postgres = EmbeddedPostgresServer.start(dir, 0);
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
    }

    @Test
    void aNotificationDuringManualReviewIsShownSurvivesARestartAndIsAppliedOnResolution() throws Exception {
        String id;
        String notificationId = "evt-" + UUID.randomUUID();
        try (NodeProcess first = NodeProcess.start("evidence-node-1", postgres.jdbcUrl(), NODE_ARGS)) {
            HttpApi api = new HttpApi(first.port());
            HttpApi.Response started = api.startCheckout("evidence-" + UUID.randomUUID(),
                    HttpApi.checkoutBody("SKU-0200", 1, 4200, "tok_unknown"));
            assertThat(started.status()).isEqualTo(202);
            id = started.json().get("checkoutId").asText();
            awaitState(api, id, "manual_review");

            String body = "{\"eventId\":\"" + notificationId + "\",\"operationId\":\"" + id + "/authorize-payment\","
                    + "\"status\":\"AUTHORIZED\",\"reference\":\"PSP-LATE-7\",\"tenantId\":\"demo\","
                    + "\"amountMinor\":4200,\"currency\":\"EUR\"}";
            for (int delivery = 0; delivery < 2; delivery++) { // providers deliver twice, each delivery signed anew
                HttpApi.Response r = api.send("POST", "/api/v1/payment-callbacks", null, signed(body, delivery), body);
                assertThat(r.status()).as(r.body()).isEqualTo(202);
            }
            String tooLong = body.replace("PSP-LATE-7", "R".repeat(300)).replace(notificationId, notificationId + "x");
            assertThat(api.send("POST", "/api/v1/payment-callbacks", null, signed(tooLong, 0), tooLong).status())
                    .isEqualTo(400);

            JsonNode view = await().atMost(Duration.ofSeconds(20)).until(() -> api.get("/api/v1/checkouts/" + id).json(),
                    v -> v.has("notificationsHeld"));
            assertHeldEvidenceShown(api, id, view);
            first.kill9();
        }

        try (NodeProcess second = NodeProcess.start("evidence-node-2", postgres.jdbcUrl(), NODE_ARGS)) {
            HttpApi api = new HttpApi(second.port());
            JsonNode view = api.get("/api/v1/checkouts/" + id).json();
            assertHeldEvidenceShown(api, id, view); // after kill -9 and a restart, still there

            HttpApi.Response resolved = api.send("POST", "/api/v1/operator/checkouts/" + id + "/resolve",
                    HttpApi.OPERATOR_KEY, Map.of("If-Match", "\"" + view.get("version").asText() + "\""),
                    "{\"resolution\":\"authorized\",\"reason\":\"the provider notified the authorization\"}");
            assertThat(resolved.status()).as(resolved.body()).isEqualTo(202);
            // the held notification's reference is applied; the capture then asks the provider, whose simulator never
            // authorized this token (the notification was the test's, not the provider's): refused, the checkout is
            // undone, and no money is taken on evidence the provider does not stand by
            JsonNode done = awaitState(api, id, "cancelled");
            assertThat(done.get("providerReference").asText()).isEqualTo("PSP-LATE-7");
            assertThat(done.get("reason").asText()).isEqualTo("capture_declined");
        }
    }

    private static Map<String, String> signed(String body, int delivery) {
        long now = java.time.Instant.now().getEpochSecond() + delivery; // a distinct signature per delivery
        return StandardWebhooksSigner.signed(SECRET, now, body);
    }

    private static void assertHeldEvidenceShown(HttpApi api, String id, JsonNode view) {
        assertThat(view.get("state").asText()).isEqualTo("manual_review");
        JsonNode held = view.get("notificationsHeld");
        assertThat(held).hasSize(1); // delivered twice, held once
        assertThat(held.get(0).get("outcome").asText()).isEqualTo("authorized");
        assertThat(held.get(0).get("providerReference").asText()).isEqualTo("PSP-LATE-7");
        assertThat(view.get("manualReview").get("evidence").asText()).contains("PSP-LATE-7", "resolve as authorized");
        List<String> types = new java.util.ArrayList<>();
        api.get("/api/v1/checkouts/" + id + "/history").json().forEach(e -> types.add(e.get("type").asText()));
        assertThat(types).containsOnlyOnce("ProviderNotificationHeldEvent");
        assertThat(types).doesNotContain("PaymentAuthorizedEvent");
    }

    private static JsonNode awaitState(HttpApi api, String id, String state) {
        return api.awaitState(id, state, Duration.ofSeconds(60));
    }
}
