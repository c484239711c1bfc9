package io.durablecheckout.activities.simulator;

import io.durablecheckout.activities.ActivityMetrics;
import io.durablecheckout.activities.PostgresTestSupport;
import io.durablecheckout.activities.RecordingEventGateway;
import io.durablecheckout.activities.WorkerPauseHook;
import io.durablecheckout.activities.payments.HttpPaymentProvider;
import io.durablecheckout.activities.payments.PaymentProvider;
import io.durablecheckout.activities.payments.PaymentProvider.AuthorizationAnswer;
import io.durablecheckout.activities.payments.PaymentProvider.AuthorizationStatus;
import io.durablecheckout.activities.payments.PaymentProvider.CompensationAnswer;
import io.durablecheckout.activities.payments.PaymentsResource;
import io.durablecheckout.activities.payments.PaymentsWorker;
import io.durablecheckout.activities.payments.WebhookSignatures;
import io.durablecheckout.api.activity.PaymentAuthorizationOutcomeUnknownEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationSucceededEvent;
import io.durablecheckout.api.activity.PaymentLookupAnsweredEvent;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.checkout.PaymentAuthorizationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.durablecheckout.activities.TestIntents.lease;
import static io.durablecheckout.activities.TestIntents.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The simulator over real HTTP, driven through the real {@link HttpPaymentProvider}. */
class PaymentProviderSimulatorHttpTest extends PostgresTestSupport {

    private static final Money AMOUNT = new Money(1_999, "EUR");
    private static final AtomicInteger SEQ = new AtomicInteger();
    private static final String SECRET = "test-webhook-secret-of-at-least-32-chars";

    private static ConfigurableApplicationContext app;
    private static PaymentProvider provider;
    private static int port;

    @BeforeAll
    static void startSimulator() {
        app = new SpringApplicationBuilder(SimulatorTestApplication.class)
                .properties(
                        "server.port=0",
                        "spring.main.banner-mode=off",
                        "spring.datasource.url=" + postgres.getJdbcUrl("postgres", "postgres"),
                        // Short delays, but the timeout tokens still outlast the client's request timeout; the
                        // timeout leaves room for a loaded 2-core CI machine to answer the ordinary calls in time.
                        "checkout.payments.request-timeout=1500ms",
                        "checkout.payments.connect-timeout=1s",
                        "checkout.simulator.timeout-delay=3s",
                        "checkout.simulator.slow-delay=50ms",
                        "checkout.simulator.down-for-attempts=2",
                        "checkout.simulator.webhooks.enabled=true",
                        "checkout.simulator.webhooks.duplicate=true",
                        "checkout.simulator.webhooks.delay=20ms",
                        "checkout.simulator.three-ds-delay=300ms",
                        "checkout.payments.webhook-secret=" + SECRET)
                .run();
        port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
        // The auto-configured adapter, with no provider-url set: it must find this server's own simulator.
        provider = app.getBean(PaymentProvider.class);
    }

    @AfterAll
    static void stopSimulator() {
        if (app != null) app.close();
    }

    private static OperationId op() {
        return OperationId.of(new CheckoutId("chk-s" + SEQ.incrementAndGet()), Step.AUTHORIZE_PAYMENT);
    }

    @Test
    void wiresTheAutoConfiguredDefaults() {
        assertThat(provider).isInstanceOf(HttpPaymentProvider.class);
        assertThat(app.getBean(WorkerPauseHook.class)).isSameAs(WorkerPauseHook.NONE);
        // the simulator's own loopback server, not the application's web server
        assertThat(app.getEnvironment().getProperty(SimulatorServer.PORT_PROPERTY, Integer.class))
                .isEqualTo(app.getBean(SimulatorServer.class).port())
                .isNotEqualTo(port);
    }

    @Test
    void theSimulatorsOwnServerSpeaksTheProtocolAndLogsEveryCallOnce() {
        OperationId id = op();
        AuthorizationAnswer first = provider.authorize(id, AMOUNT, "tok_approve");
        assertThat(first.status()).isEqualTo(AuthorizationStatus.AUTHORIZED);
        assertThat(provider.authorize(id, AMOUNT, "tok_decline")).isEqualTo(first);
        assertThat(provider.lookup(id, new OperationId(id.value() + "-lookup")).outcome())
                .isEqualTo(PaymentLookupOutcome.AUTHORIZED);
        assertThat(provider.voidAuthorization(id, new OperationId(id.value() + "-void"), AMOUNT).done()).isTrue();
        assertThat(jdbc.queryForList("SELECT action FROM simulator_calls WHERE operation_id = ? ORDER BY id",
                String.class, id.value())).containsExactly("AUTHORIZE", "AUTHORIZE", "LOOKUP", "VOID");
        assertThat(jdbc.queryForList("SELECT idempotency_key FROM simulator_calls WHERE operation_id = ?"
                + " AND action = 'AUTHORIZE'", String.class, id.value())).containsExactly(id.value(), id.value());
        assertThat(jdbc.queryForObject("SELECT count(*) FROM simulator_authorizations WHERE operation_id = ?",
                Integer.class, id.value())).isEqualTo(1);
    }

    /** Issue 53: on the application's port anyone could decide a predicted operation first, or read its status. */
    @Test
    void theApplicationsPortDoesNotServeTheSimulator() throws Exception {
        OperationId id = op();
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> decline = http.send(HttpRequest.newBuilder(
                        URI.create("http://localhost:" + port + "/simulator/provider/v1/authorizations"))
                .header("Content-Type", "application/json").header("Idempotency-Key", id.value())
                .POST(HttpRequest.BodyPublishers.ofString("{\"operationId\":\"" + id.value()
                        + "\",\"amountMinor\":1,\"currency\":\"EUR\",\"paymentToken\":\"tok_decline\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(decline.statusCode()).isEqualTo(404);
        HttpResponse<String> read = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                + "/simulator/provider/v1/authorizations/" + id.value())).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(read.statusCode()).isEqualTo(404);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM simulator_calls WHERE operation_id = ?", Integer.class,
                id.value())).isZero();
        // the checkout's own call, later, is the one that decides
        assertThat(provider.authorize(id, AMOUNT, "tok_approve").status()).isEqualTo(AuthorizationStatus.AUTHORIZED);
    }

    @Test
    void theSimulatorsOwnServerAnswersUnknownPathsAndBadBodiesAsTheWebStackDoes() throws Exception {
        int own = app.getBean(SimulatorServer.class).port();
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> wrongPath = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + own + "/simulator/provider/v1/authorizations/x/authorize-payment/nope"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(wrongPath.statusCode()).isEqualTo(404);
        HttpResponse<String> notJson = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + own + "/simulator/provider/v1/authorizations"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{not json")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(notJson.statusCode()).isEqualTo(400);
        HttpResponse<String> elsewhere = http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + own + "/api/v1/checkouts")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(elsewhere.statusCode()).isEqualTo(404);
    }

    @Test
    void approveAndDecline() {
        OperationId approve = op();
        OperationId decline = op();
        OperationId other = op();

        AuthorizationAnswer approved = provider.authorize(approve, AMOUNT, "tok_approve");
        AuthorizationAnswer declined = provider.authorize(decline, AMOUNT, "tok_decline");
        AuthorizationAnswer unknownToken = provider.authorize(other, AMOUNT, "tok_whatever");

        assertThat(approved.status()).isEqualTo(AuthorizationStatus.AUTHORIZED);
        assertThat(approved.reference()).startsWith("SIM-");
        assertThat(declined.status()).isEqualTo(AuthorizationStatus.DECLINED);
        assertThat(unknownToken.status()).isEqualTo(AuthorizationStatus.DECLINED);
        assertThat(unknownToken.detail()).isEqualTo("unknown payment token");
        assertThat(provider.lookup(approve).outcome()).isEqualTo(PaymentLookupOutcome.AUTHORIZED);
        assertThat(provider.lookup(decline).outcome()).isEqualTo(PaymentLookupOutcome.DECLINED);
        assertThat(provider.lookup(op()).outcome()).isEqualTo(PaymentLookupOutcome.NOT_FOUND);
    }

    @Test
    void duplicatePostReturnsTheRecordedResultAndNeverReDecides() {
        OperationId id = op();
        AuthorizationAnswer first = provider.authorize(id, AMOUNT, "tok_approve");
        // Same operation id, different token: the provider answers from its record.
        AuthorizationAnswer second = provider.authorize(id, AMOUNT, "tok_decline");

        assertThat(second).isEqualTo(first);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM simulator_authorizations WHERE operation_id = ?",
                Integer.class, id.value())).isEqualTo(1);
    }

    @Test
    void timeoutIsUnknownAndTheLookupUnderTheSameIdFindsTheDecision() {
        OperationId approve = op();
        OperationId decline = op();

        AuthorizationAnswer timedOut = provider.authorize(approve, AMOUNT, "tok_timeout_then_approve");
        assertThat(timedOut.status()).isEqualTo(AuthorizationStatus.UNKNOWN);
        assertThat(provider.lookup(approve).outcome()).isEqualTo(PaymentLookupOutcome.AUTHORIZED);
        // Asking again under the same id is answered at once from the record.
        assertThat(provider.authorize(approve, AMOUNT, "tok_timeout_then_approve").status())
                .isEqualTo(AuthorizationStatus.AUTHORIZED);

        assertThat(provider.authorize(decline, AMOUNT, "tok_timeout_then_decline").status())
                .isEqualTo(AuthorizationStatus.UNKNOWN);
        assertThat(provider.lookup(decline).outcome()).isEqualTo(PaymentLookupOutcome.DECLINED);
    }

    @Test
    void unknownStaysPendingAndSlowStillAnswersInTime() {
        OperationId pending = op();
        assertThat(provider.authorize(pending, AMOUNT, "tok_unknown").status()).isEqualTo(AuthorizationStatus.UNKNOWN);
        assertThat(provider.lookup(pending).outcome()).isEqualTo(PaymentLookupOutcome.PENDING);
        assertThat(provider.authorize(pending, AMOUNT, "tok_unknown").status()).isEqualTo(AuthorizationStatus.PENDING);

        assertThat(provider.authorize(op(), AMOUNT, "tok_slow").status()).isEqualTo(AuthorizationStatus.AUTHORIZED);
    }

    @Test
    void providerDownRefusesTwiceWithoutRecordingThenAuthorizes() {
        OperationId id = op();
        AuthorizationAnswer first = provider.authorize(id, AMOUNT, "tok_provider_down");
        assertThat(first.status()).isEqualTo(AuthorizationStatus.UNAVAILABLE);
        assertThat(first.detail()).contains("503");
        assertThat(provider.lookup(id).outcome()).isEqualTo(PaymentLookupOutcome.NOT_FOUND);
        assertThat(provider.authorize(id, AMOUNT, "tok_provider_down").status()).isEqualTo(AuthorizationStatus.UNAVAILABLE);
        assertThat(provider.authorize(id, AMOUNT, "tok_provider_down").status()).isEqualTo(AuthorizationStatus.AUTHORIZED);
        assertThat(provider.lookup(id).outcome()).isEqualTo(PaymentLookupOutcome.AUTHORIZED);
    }

    @Test
    void voidAndRefundAreIdempotentByTheirKeys() {
        OperationId voided = op();
        OperationId refunded = op();
        provider.authorize(voided, AMOUNT, "tok_approve");
        provider.authorize(refunded, AMOUNT, "tok_approve");
        OperationId voidKey = new OperationId(voided.value() + "-void");
        OperationId refundKey = new OperationId(refunded.value() + "-refund");

        CompensationAnswer v1 = provider.voidAuthorization(voided, voidKey, AMOUNT);
        CompensationAnswer v2 = provider.voidAuthorization(voided, voidKey, AMOUNT);
        CompensationAnswer r1 = provider.refund(refunded, refundKey, AMOUNT);
        CompensationAnswer r2 = provider.refund(refunded, refundKey, AMOUNT);
        CompensationAnswer refundAfterVoid = provider.refund(voided, new OperationId(voided.value() + "-refund"), AMOUNT);

        assertThat(v1.done()).isTrue();
        assertThat(v2).isEqualTo(v1);
        assertThat(r1.done()).isTrue();
        assertThat(r2).isEqualTo(r1);
        assertThat(refundAfterVoid.done()).isFalse();
        assertThat(refundAfterVoid.detail()).contains("409").contains("voided");
    }

    @Test
    void aVoidBeforeTheAuthorizationArrivesMakesTheLateAuthorizationDecline() {
        OperationId id = op();
        assertThat(provider.voidAuthorization(id, new OperationId(id.value() + "-void"), AMOUNT).done()).isTrue();
        AuthorizationAnswer late = provider.authorize(id, AMOUNT, "tok_approve");
        assertThat(late.status()).isEqualTo(AuthorizationStatus.DECLINED);
        assertThat(late.detail()).isEqualTo("voided before authorization");
    }

    @Test
    void operationIdsWithReservedCharactersRoundTripThroughThePath() {
        OperationId id = new OperationId("chk weird?#%+" + SEQ.incrementAndGet() + "/authorize-payment");
        assertThat(provider.authorize(id, AMOUNT, "tok_approve").status()).isEqualTo(AuthorizationStatus.AUTHORIZED);
        assertThat(provider.lookup(id).outcome()).isEqualTo(PaymentLookupOutcome.AUTHORIZED);
        assertThat(provider.voidAuthorization(id, new OperationId(id.value() + "/void"), AMOUNT).done()).isTrue();
    }

    @Test
    void unreachableProviderIsUnavailableAndAWrongUrlIsNeverProofOfAbsence() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        HttpPaymentProvider down = new HttpPaymentProvider(() -> "http://localhost:" + closedPort,
                Duration.ofMillis(300), Duration.ofMillis(300));
        assertThat(down.authorize(op(), AMOUNT, "tok_approve").status()).isEqualTo(AuthorizationStatus.UNAVAILABLE);
        assertThat(down.lookup(op()).outcome()).isEqualTo(PaymentLookupOutcome.LOOKUP_FAILED);
        assertThat(down.voidAuthorization(op(), op(), AMOUNT).done()).isFalse();

        // no provider URL and no simulator of its own: nothing is called, the request counts as never delivered
        HttpPaymentProvider none = new HttpPaymentProvider(() -> null, Duration.ofMillis(300), Duration.ofMillis(300));
        assertThat(none.authorize(op(), AMOUNT, "tok_approve").status()).isEqualTo(AuthorizationStatus.UNAVAILABLE);
        assertThat(none.lookup(op()).outcome()).isEqualTo(PaymentLookupOutcome.LOOKUP_FAILED);
        assertThat(none.voidAuthorization(op(), op(), AMOUNT).done()).isFalse();

        HttpPaymentProvider misconfigured = new HttpPaymentProvider(() -> "http://localhost:" + port + "/nowhere",
                Duration.ofMillis(300), Duration.ofMillis(300));
        assertThat(misconfigured.lookup(op()).outcome()).isEqualTo(PaymentLookupOutcome.LOOKUP_FAILED);
    }

    @Test
    void missingOrMismatchedIdempotencyKeyIsRefused() throws Exception {
        for (int server : List.of(app.getBean(SimulatorServer.class).port())) {
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://localhost:" + server + "/simulator/provider/v1/authorizations"))
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", "something-else")
                    .POST(HttpRequest.BodyPublishers.ofString(
                            "{\"operationId\":\"x/authorize-payment\",\"amountMinor\":1,\"currency\":\"EUR\",\"paymentToken\":\"tok_approve\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(400);
            assertThat(response.body()).contains("\"status\":\"INVALID\"");
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM simulator_authorizations WHERE operation_id = 'x/authorize-payment'",
                Integer.class)).isZero();
        // refused, but received: it is in the provider's call log
        assertThat(jdbc.queryForObject("SELECT count(*) FROM simulator_calls WHERE operation_id = 'x/authorize-payment'",
                Integer.class)).isEqualTo(1);
    }

    @Test
    void signedWebhooksAreSentForDecisionsAndDuplicatedWhenAsked() {
        OperationId id = op();
        provider.authorize(id, AMOUNT, "tok_approve");

        await().atMost(5, TimeUnit.SECONDS).until(() -> webhooksFor(id).size() == 2);
        List<SimulatorTestApplication.ReceivedWebhook> received = webhooksFor(id);
        assertThat(received.get(0).body()).isEqualTo(received.get(1).body());
        // a redelivery is signed anew (its own timestamp), so the receiver does not take it for a replay
        assertThat(received.get(0).signature()).isNotEqualTo(received.get(1).signature());
        for (SimulatorTestApplication.ReceivedWebhook webhook : received) {
            // Standard Webhooks: the official library verifies what the simulator signed
            java.util.Map<String, List<String>> headers = java.util.Map.of(
                    "webhook-id", List.of(webhook.id()), "webhook-timestamp", List.of(Long.toString(webhook.timestamp())),
                    "webhook-signature", List.of(webhook.signature()));
            org.assertj.core.api.Assertions.assertThatCode(() -> WebhookSignatures.webhook(SECRET)
                    .verify(webhook.body(), headers)).doesNotThrowAnyException();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> WebhookSignatures
                    .webhook("another-secret-another-secret-00").verify(webhook.body(), headers))
                    .isInstanceOf(com.standardwebhooks.exceptions.WebhookVerificationException.class);
            java.util.Map<String, List<String>> otherTime = new java.util.HashMap<>(headers);
            otherTime.put("webhook-timestamp", List.of(Long.toString(webhook.timestamp() + 1)));
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> WebhookSignatures.webhook(SECRET)
                    .verify(webhook.body(), otherTime))
                    .isInstanceOf(com.standardwebhooks.exceptions.WebhookVerificationException.class);
            assertThat(webhook.id()).startsWith("sim-evt:" + id);
            assertThat(webhook.body()).contains("\"status\":\"AUTHORIZED\"").contains("\"eventId\":\"sim-evt:" + id)
                    .contains("\"amountMinor\":" + AMOUNT.minor()).contains("\"currency\":\"" + AMOUNT.currency() + "\"");
        }
        // Nothing for an undecided (PENDING) operation.
        OperationId pending = op();
        provider.authorize(pending, AMOUNT, "tok_unknown");
        assertThat(webhooksFor(pending)).isEmpty();
    }

    /**
     * 3-D Secure: REQUIRES_ACTION with a redirect to the simulator's page, PENDING to a lookup until the customer acts;
     * tok_3ds's customer authenticates after three-ds-delay (AUTHORIZED, webhook), tok_3ds_abandoned's never, and a
     * void declines it for good (opening the page then authenticates nothing).
     */
    @Test
    void threeDSecureAsksForTheCustomerThenAuthorizesWithAWebhookOrWaitsForeverUntilVoided() throws Exception {
        OperationId completes = op();
        AuthorizationAnswer first = provider.authorize(completes, AMOUNT, "tok_3ds");
        assertThat(first.status()).isEqualTo(AuthorizationStatus.ACTION_REQUIRED);
        assertThat(first.reference()).startsWith("SIM-");
        int own = app.getBean(SimulatorServer.class).port();
        assertThat(first.nextAction()).isEqualTo("{\"type\":\"redirect_to_url\",\"redirect_to_url\":{\"url\":"
                + "\"http://127.0.0.1:" + own + "/simulator/provider/3ds/" + completes.value() + "\",\"return_url\":null}}");
        assertThat(provider.authorize(completes, AMOUNT, "tok_3ds")).as("a repeat: the recorded answer").isEqualTo(first);
        await().atMost(5, TimeUnit.SECONDS).until(() -> provider.lookup(completes).outcome() == PaymentLookupOutcome.AUTHORIZED);
        await().atMost(5, TimeUnit.SECONDS).until(() -> webhooksFor(completes).size() == 2);
        assertThat(webhooksFor(completes).get(0).body()).contains("\"status\":\"AUTHORIZED\"");

        OperationId abandoned = op();
        assertThat(provider.authorize(abandoned, AMOUNT, "tok_3ds_abandoned").status())
                .isEqualTo(AuthorizationStatus.ACTION_REQUIRED);
        assertThat(provider.lookup(abandoned).outcome()).isEqualTo(PaymentLookupOutcome.PENDING);
        OperationId voidOp = new OperationId(abandoned.value().replace("/authorize-payment", "/void-payment"));
        assertThat(provider.voidAuthorization(abandoned, voidOp, AMOUNT).done()).isTrue();
        assertThat(provider.lookup(abandoned).outcome()).isEqualTo(PaymentLookupOutcome.DECLINED);
        HttpClient client = HttpClient.newHttpClient();
        {
            HttpResponse<String> page = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + own
                    + "/simulator/provider/3ds/" + abandoned.value())).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).as(page.body()).isEqualTo(409);
        }
        assertThat(provider.lookup(abandoned).outcome()).isEqualTo(PaymentLookupOutcome.DECLINED);
        assertThat(webhooksFor(abandoned)).isEmpty();

        // the customer opens the page: authenticated at once
        OperationId byHand = op();
        provider.authorize(byHand, AMOUNT, "tok_3ds_abandoned");
        {
            assertThat(client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + own
                    + "/simulator/provider/3ds/" + byHand.value())).GET().build(), HttpResponse.BodyHandlers.ofString())
                    .statusCode()).isEqualTo(200);
        }
        assertThat(provider.lookup(byHand).outcome()).isEqualTo(PaymentLookupOutcome.AUTHORIZED);
    }

    private static List<SimulatorTestApplication.ReceivedWebhook> webhooksFor(OperationId id) {
        return SimulatorTestApplication.WebhookReceiver.RECEIVED.stream()
                .filter(w -> w.body().contains("\"operationId\":\"" + id.value() + "\""))
                .toList();
    }

    @Test
    void paymentsWorkerOverHttpReportsUnknownThenReconcilesUnderTheOriginalOperationId() {
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        RecordingEventGateway events = new RecordingEventGateway();
        PaymentsWorker worker = new PaymentsWorker(payments, events, new ActivityMetrics(new SimpleMeterRegistry()));
        CheckoutId checkout = new CheckoutId("chk-e2e-" + SEQ.incrementAndGet());
        TenantId tenant = new TenantId("t1");
        OperationId authOp = OperationId.of(checkout, Step.AUTHORIZE_PAYMENT);
        OperationId lookupOp = OperationId.of(checkout, Step.RECONCILE_PAYMENT);

        inTransaction(() -> worker.on(new PaymentAuthorizationRequestedEvent(checkout, tenant, AMOUNT,
                "tok_timeout_then_approve", lease(checkout, Step.AUTHORIZE_PAYMENT, 1))));
        inTransaction(() -> worker.on(new PaymentReconciliationRequestedEvent(checkout, tenant, authOp, 1,
                lease(checkout, Step.RECONCILE_PAYMENT, 1))));
        inTransaction(() -> worker.on(new PaymentAuthorizationRequestedEvent(checkout, tenant, AMOUNT,
                "tok_timeout_then_approve", lease(checkout, Step.AUTHORIZE_PAYMENT, 2))));

        String reference = SimulatorLedger.reference("SIM-", authOp.value());
        assertThat(events.published()).hasSize(3);
        assertThat(events.published().get(0)).isInstanceOf(PaymentAuthorizationOutcomeUnknownEvent.class);
        assertThat(events.published().get(1)).isEqualTo(new PaymentLookupAnsweredEvent(checkout, lookupOp, token(1),
                authOp, PaymentLookupOutcome.AUTHORIZED, reference, null));
        assertThat(events.published().get(2)).isEqualTo(new PaymentAuthorizationSucceededEvent(checkout, authOp,
                token(2), reference));
        assertThat(payments.statusOf(authOp)).isEqualTo("AUTHORIZED");
    }
}
