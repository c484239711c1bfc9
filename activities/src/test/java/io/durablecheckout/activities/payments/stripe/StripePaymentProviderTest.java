package io.durablecheckout.activities.payments.stripe;

import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.Scenario;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.durablecheckout.activities.PostgresTestSupport;
import io.durablecheckout.activities.payments.PaymentProvider.AuthorizationStatus;
import io.durablecheckout.activities.payments.PaymentProvider.CaptureStatus;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.UUID;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Stripe adapter through the real SDK against a stub of Stripe's API: every call is counted where it arrives.
 * A PaymentIntent is created once per operation (the SDK's Idempotency-Key; a redelivery reads the recorded intent);
 * a timeout after the charge is unknown and the lookup under the original operation id finds it authorized.
 */
class StripePaymentProviderTest extends PostgresTestSupport {

    private static final Money AMOUNT = new Money(2500, "EUR");

    private StripeStub stub;
    private StripePaymentProvider stripe;
    private OperationId op;
    private String intentId;

    @BeforeEach
    void start() {
        stub = new StripeStub();
        stripe = new StripePaymentProvider(stub.client(20_000), jdbc, transactionManager);
        op = new OperationId("co_" + UUID.randomUUID() + "/authorize-payment");
        intentId = "pi_" + UUID.randomUUID().toString().replace("-", "").substring(0, 24);
    }

    @AfterEach
    void stop() {
        stub.close();
    }

    private void createAnswers(String status) {
        stub.server.stubFor(post(urlPathEqualTo("/v1/payment_intents"))
                .withHeader("Idempotency-Key", equalTo(op.value() + ":create"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody(StripeStub.intent(intentId, op.value(), 2500, status, null, null))));
    }

    private void confirmAnswers(int status, String body) {
        stub.server.stubFor(post(urlPathEqualTo("/v1/payment_intents/" + intentId + "/confirm"))
                .withHeader("Idempotency-Key", equalTo(op.value() + ":confirm"))
                .willReturn(aResponse().withStatus(status).withHeader("Content-Type", "application/json").withBody(body)));
    }

    private void retrieveAnswers(String status) {
        stub.server.stubFor(get(urlPathEqualTo("/v1/payment_intents/" + intentId))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody(StripeStub.intent(intentId, op.value(), 2500, status, null, null))));
    }

    private List<LoggedRequest> creates() {
        return stub.requests("POST", "/v1/payment_intents");
    }

    @Test
    void anAuthorizationIsAManualCaptureIntentCreatedOnceUnderTheOperationIdThenConfirmed() {
        createAnswers("requires_confirmation");
        confirmAnswers(200, StripeStub.intent(intentId, op.value(), 2500, "requires_capture", null, null));
        retrieveAnswers("requires_capture");

        var first = stripe.authorize(op, AMOUNT, "pm_card_visa", "demo");
        var redelivered = stripe.authorize(op, AMOUNT, "pm_card_visa", "demo");

        assertThat(first.status()).isEqualTo(AuthorizationStatus.AUTHORIZED);
        assertThat(first.reference()).isEqualTo(intentId);
        assertThat(redelivered.status()).isEqualTo(AuthorizationStatus.AUTHORIZED);
        // counted at the stub: one intent created, one confirm; the redelivery read the recorded intent
        assertThat(creates()).hasSize(1);
        LoggedRequest create = creates().get(0);
        assertThat(create.getHeader("Idempotency-Key")).isEqualTo(op.value() + ":create");
        assertThat(create.getBodyAsString()).contains("capture_method=manual").contains("amount=2500")
                .contains("currency=eur").contains("metadata[operation_id]=" + urlEncoded(op.value()))
                .contains("metadata[tenant_id]=demo");
        assertThat(stub.requests("POST", "/v1/payment_intents/.*/confirm")).hasSize(1);
        assertThat(jdbc.queryForObject("SELECT intent_id FROM stripe_payment_intents WHERE operation_id = ?",
                String.class, op.value())).isEqualTo(intentId);
    }

    @Test
    void aCrashBeforeTheIntentWasRecordedIsAnIdempotentReplayAtStripe() {
        createAnswers("requires_confirmation");
        confirmAnswers(200, StripeStub.intent(intentId, op.value(), 2500, "requires_capture", null, null));
        stripe.authorize(op, AMOUNT, "pm_card_visa", "demo");
        // the record lost (the process died between Stripe's answer and our commit): the retry creates again, under
        // the same key, and Stripe answers with the same intent (an idempotent replay)
        jdbc.update("DELETE FROM stripe_payment_intents WHERE operation_id = ?", op.value());
        stub.server.stubFor(post(urlPathEqualTo("/v1/payment_intents"))
                .withHeader("Idempotency-Key", equalTo(op.value() + ":create"))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withHeader("Idempotent-Replayed", "true")
                        .withBody(StripeStub.intent(intentId, op.value(), 2500, "requires_capture", null, null))));
        var again = stripe.authorize(op, AMOUNT, "pm_card_visa", "demo");

        assertThat(again.status()).isEqualTo(AuthorizationStatus.AUTHORIZED);
        assertThat(again.reference()).isEqualTo(intentId);
        assertThat(creates()).hasSize(2).allMatch(r -> r.getHeader("Idempotency-Key").equals(op.value() + ":create"));
        assertThat(stub.requests("POST", "/v1/payment_intents/.*/confirm")).as("not confirmed twice").hasSize(1);
    }

    @Test
    void aTimeoutAfterTheChargeIsUnknownAndTheLookupUnderTheOriginalOperationFindsItAuthorized() {
        createAnswers("requires_confirmation");
        // Stripe confirms (the authorization is made) but the answer comes after the SDK's read timeout
        stub.server.stubFor(post(urlPathEqualTo("/v1/payment_intents/" + intentId + "/confirm"))
                .inScenario("charge").whenScenarioStateIs(Scenario.STARTED).willSetStateTo("authorized")
                .willReturn(aResponse().withStatus(200).withFixedDelay(4_000).withHeader("Content-Type", "application/json")
                        .withBody(StripeStub.intent(intentId, op.value(), 2500, "requires_capture", null, null))));
        stub.server.stubFor(get(urlPathEqualTo("/v1/payment_intents/" + intentId))
                .inScenario("charge").whenScenarioStateIs("authorized")
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody(StripeStub.intent(intentId, op.value(), 2500, "requires_capture", null, null))));

        // a read timeout shorter than Stripe's delay (the create is answered at once)
        stripe = new StripePaymentProvider(stub.client(1_500), jdbc, transactionManager);
        var answer = stripe.authorize(op, AMOUNT, "pm_card_visa", "demo");
        assertThat(answer.status()).as(answer.detail()).isEqualTo(AuthorizationStatus.UNKNOWN);
        assertThat(answer.detail()).contains("no answer");

        var lookup = stripe.lookup(op);
        assertThat(lookup.outcome()).isEqualTo(PaymentLookupOutcome.AUTHORIZED);
        assertThat(lookup.reference()).isEqualTo(intentId);
        assertThat(creates()).hasSize(1);
        // by the recorded id, not by a search: it works after Stripe's idempotency window
        assertThat(stub.requests("GET", "/v1/payment_intents/search")).isEmpty();
    }

    @Test
    void stripesAnswersMapOntoDeclinedPendingUnknownOrUnavailableNeverATimeoutAsADecline() {
        createAnswers("requires_confirmation");
        confirmAnswers(402, StripeStub.error("card_error", "card_declined", "insufficient_funds"));
        assertThat(stripe.authorize(op, AMOUNT, "pm_card_visa", "demo")).satisfies(a -> {
            assertThat(a.status()).isEqualTo(AuthorizationStatus.DECLINED);
            assertThat(a.detail()).contains("insufficient_funds");
        });

        fresh();
        createAnswers("requires_confirmation");
        confirmAnswers(200, StripeStub.intent(intentId, op.value(), 2500, "requires_action", null,
                "{\"type\":\"use_stripe_sdk\",\"use_stripe_sdk\":{}}"));
        assertThat(stripe.authorize(op, AMOUNT, "pm_card_threeDSecure2Required", "demo")).satisfies(a -> {
            assertThat(a.status()).as("3-D Secure: the customer acts").isEqualTo(AuthorizationStatus.ACTION_REQUIRED);
            assertThat(a.nextAction()).isEqualTo("{\"type\":\"use_stripe_sdk\",\"use_stripe_sdk\":{}}");
            assertThat(a.reference()).isEqualTo(intentId);
        });

        fresh();
        createAnswers("requires_confirmation");
        confirmAnswers(200, StripeStub.intent(intentId, op.value(), 2500, "requires_action", null,
                "{\"type\":\"redirect_to_url\",\"redirect_to_url\":{\"url\":\"https://hooks.stripe.com/3d_secure_2/hosted?x=1\","
                        + "\"return_url\":\"https://shop.example/return\"}}"));
        assertThat(stripe.authorize(op, AMOUNT, "pm_card_threeDSecure2Required", "demo").nextAction())
                .as("Stripe's next_action as it sent it").isEqualTo("{\"type\":\"redirect_to_url\",\"redirect_to_url\":"
                        + "{\"url\":\"https://hooks.stripe.com/3d_secure_2/hosted?x=1\",\"return_url\":\"https://shop.example/return\"}}");

        fresh();
        createAnswers("requires_confirmation");
        confirmAnswers(500, StripeStub.error("api_error", null, null));
        assertThat(stripe.authorize(op, AMOUNT, "pm_card_visa", "demo").status()).isEqualTo(AuthorizationStatus.UNKNOWN);

        fresh();
        createAnswers("requires_confirmation");
        confirmAnswers(400, StripeStub.error("idempotency_error", null, null));
        assertThat(stripe.authorize(op, AMOUNT, "pm_card_visa", "demo").status()).isEqualTo(AuthorizationStatus.UNKNOWN);

        fresh();
        createAnswers("requires_confirmation");
        stub.server.stubFor(post(urlPathEqualTo("/v1/payment_intents/" + intentId + "/confirm"))
                .willReturn(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)));
        assertThat(stripe.authorize(op, AMOUNT, "pm_card_visa", "demo").status()).isEqualTo(AuthorizationStatus.UNKNOWN);

        fresh();
        stub.server.stubFor(post(urlPathEqualTo("/v1/payment_intents")).willReturn(aResponse().withStatus(429)
                .withHeader("Content-Type", "application/json").withBody(StripeStub.error("invalid_request_error",
                        "rate_limit", null))));
        assertThat(stripe.authorize(op, AMOUNT, "pm_card_visa", "demo").status())
                .as("rate limited: not processed, retry").isEqualTo(AuthorizationStatus.UNAVAILABLE);
    }

    @Test
    void aLookupThatFindsNothingByMetadataStaysPendingNeverNotFound() {
        stub.server.stubFor(get(urlPathEqualTo("/v1/payment_intents/search")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json").withBody(StripeStub.search())));
        var lookup = stripe.lookup(op);
        assertThat(lookup.outcome()).isEqualTo(PaymentLookupOutcome.PENDING);
        assertThat(stub.requests("GET", "/v1/payment_intents/search").get(0).queryParameter("query").firstValue())
                .isEqualTo("metadata['operation_id']:'" + op.value() + "'");

        // found by the search (the record lost): its state is the answer
        stub.server.stubFor(get(urlPathEqualTo("/v1/payment_intents/search")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json").withBody(StripeStub.search(
                        StripeStub.intent(intentId, op.value(), 2500, "requires_capture", null, null)))));
        assertThat(stripe.lookup(op).outcome()).isEqualTo(PaymentLookupOutcome.AUTHORIZED);
    }

    @Test
    void voidCancelsTheIntentAndARefundOfACapturedOneIsARefundEachUnderItsOwnKey() {
        jdbc.update("INSERT INTO stripe_payment_intents (operation_id, intent_id) VALUES (?, ?)", op.value(), intentId);
        OperationId voidOp = new OperationId(op.value().replace("authorize-payment", "void-payment"));
        OperationId refundOp = new OperationId(op.value().replace("authorize-payment", "refund-payment"));
        retrieveAnswers("requires_capture");
        stub.server.stubFor(post(urlPathEqualTo("/v1/payment_intents/" + intentId + "/cancel"))
                .withHeader("Idempotency-Key", equalTo(voidOp.value()))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody(StripeStub.intent(intentId, op.value(), 2500, "canceled", null, null))));
        assertThat(stripe.voidAuthorization(op, voidOp, AMOUNT).done()).isTrue();

        retrieveAnswers("succeeded");
        stub.server.stubFor(post(urlPathEqualTo("/v1/refunds")).withHeader("Idempotency-Key", equalTo(refundOp.value()))
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody(StripeStub.refund("re_1", intentId, 2500))));
        var refund = stripe.refund(op, refundOp, AMOUNT);
        assertThat(refund.done()).isTrue();
        assertThat(refund.reference()).isEqualTo("re_1");
        assertThat(stub.requests("POST", "/v1/refunds").get(0).getBodyAsString())
                .contains("payment_intent=" + intentId).contains("amount=2500");
    }

    private OperationId captureOp() {
        return new OperationId(op.value().replace("authorize-payment", "capture-payment"));
    }

    private void captureAnswers(com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder response) {
        stub.server.stubFor(post(urlPathEqualTo("/v1/payment_intents/" + intentId + "/capture")).willReturn(response));
    }

    private static com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder json(int status, String body) {
        return aResponse().withStatus(status).withHeader("Content-Type", "application/json").withBody(body);
    }

    @Test
    void aCaptureLooksTheIntentUpFirstThenCapturesUnderTheCaptureOperationsKey() {
        jdbc.update("INSERT INTO stripe_payment_intents (operation_id, intent_id) VALUES (?, ?)", op.value(), intentId);
        retrieveAnswers("requires_capture");
        captureAnswers(json(200, StripeStub.intent(intentId, op.value(), 2500, "succeeded", null, null)));

        var captured = stripe.capture(op, captureOp(), AMOUNT);

        assertThat(captured.status()).as(captured.detail()).isEqualTo(CaptureStatus.CAPTURED);
        assertThat(captured.reference()).isEqualTo(intentId);
        assertThat(captured.captured()).isEqualTo(AMOUNT);
        LoggedRequest capture = stub.requests("POST", "/v1/payment_intents/.*/capture").get(0);
        assertThat(capture.getHeader("Idempotency-Key")).isEqualTo(captureOp().value());
        assertThat(capture.getBodyAsString()).contains("amount_to_capture=2500");

        // captured already, or cancelled (voided, the hold lapsed): answered from the intent, nothing posted
        stub.server.resetRequests();
        retrieveAnswers("succeeded");
        assertThat(stripe.capture(op, captureOp(), AMOUNT).status()).isEqualTo(CaptureStatus.CAPTURED);
        retrieveAnswers("canceled");
        assertThat(stripe.capture(op, captureOp(), AMOUNT).status()).isEqualTo(CaptureStatus.DECLINED);
        assertThat(stub.requests("POST", "/v1/payment_intents/.*/capture")).isEmpty();
    }

    @Test
    void captureErrorsMapOntoUnknownUnavailableOrDeclinedNeverATimeoutAsDone() {
        jdbc.update("INSERT INTO stripe_payment_intents (operation_id, intent_id) VALUES (?, ?)", op.value(), intentId);
        retrieveAnswers("requires_capture");

        captureAnswers(json(500, StripeStub.error("api_error", null, null)));
        assertThat(stripe.capture(op, captureOp(), AMOUNT).status()).as("a 5xx: Stripe's outcome is indeterminate")
                .isEqualTo(CaptureStatus.UNKNOWN);
        captureAnswers(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER));
        assertThat(stripe.capture(op, captureOp(), AMOUNT).status()).isEqualTo(CaptureStatus.UNKNOWN);
        captureAnswers(json(200, StripeStub.intent(intentId, op.value(), 2500, "succeeded", null, null))
                .withFixedDelay(4_000));
        var timedOut = new StripePaymentProvider(stub.client(1_500), jdbc, transactionManager)
                .capture(op, captureOp(), AMOUNT);
        assertThat(timedOut.status()).as(timedOut.detail()).isEqualTo(CaptureStatus.UNKNOWN);

        captureAnswers(json(503, StripeStub.error("api_error", null, null)));
        assertThat(stripe.capture(op, captureOp(), AMOUNT).status()).isEqualTo(CaptureStatus.UNAVAILABLE);
        captureAnswers(json(429, StripeStub.error("invalid_request_error", "rate_limit", null)));
        assertThat(stripe.capture(op, captureOp(), AMOUNT).status()).isEqualTo(CaptureStatus.UNAVAILABLE);

        captureAnswers(json(402, StripeStub.error("card_error", "card_declined", "insufficient_funds")));
        assertThat(stripe.capture(op, captureOp(), AMOUNT)).satisfies(a -> {
            assertThat(a.status()).isEqualTo(CaptureStatus.DECLINED);
            assertThat(a.detail()).contains("card_declined");
        });
        captureAnswers(json(400, StripeStub.error("invalid_request_error", "payment_intent_unexpected_state", null)));
        assertThat(stripe.capture(op, captureOp(), AMOUNT)).satisfies(a -> {
            assertThat(a.status()).isEqualTo(CaptureStatus.DECLINED);
            assertThat(a.detail()).contains("payment_intent_unexpected_state");
        });
    }

    @Test
    void aStripeThatCannotBeReachedIsUnavailable() throws java.io.IOException {
        jdbc.update("INSERT INTO stripe_payment_intents (operation_id, intent_id) VALUES (?, ?)", op.value(), intentId);
        int closed;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        StripePaymentProvider unreachable = new StripePaymentProvider(com.stripe.StripeClient.builder()
                .setApiKey("sk_test_stub").setApiBase("http://127.0.0.1:" + closed).setMaxNetworkRetries(0)
                .setConnectTimeout(1_000).setReadTimeout(1_000).build(), jdbc, transactionManager);
        var answer = unreachable.capture(op, captureOp(), AMOUNT);
        assertThat(answer.status()).as(answer.detail()).isEqualTo(CaptureStatus.UNAVAILABLE);
    }

    @Test
    void anInvalidPaymentMethodOnCreateIsADeclineAndAMalformedRequestOfOursIsNot() {
        stub.server.stubFor(post(urlPathEqualTo("/v1/payment_intents")).willReturn(json(400,
                "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"resource_missing\","
                        + "\"param\":\"payment_method\",\"message\":\"No such PaymentMethod: 'pm_nope'\"}}")));
        var declined = stripe.authorize(op, AMOUNT, "pm_nope", "demo");
        assertThat(declined.status()).isEqualTo(AuthorizationStatus.DECLINED);
        assertThat(declined.detail()).isEqualTo("declined: resource_missing");

        fresh();
        stub.server.stubFor(post(urlPathEqualTo("/v1/payment_intents")).willReturn(json(400,
                "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"parameter_unknown\","
                        + "\"param\":\"foo\",\"message\":\"Received unknown parameter: foo\"}}")));
        assertThat(stripe.authorize(op, AMOUNT, "pm_card_visa", "demo").status())
                .isEqualTo(AuthorizationStatus.UNAVAILABLE);
    }

    private void fresh() {
        stub.server.resetAll();
        op = new OperationId("co_" + UUID.randomUUID() + "/authorize-payment");
        intentId = "pi_" + UUID.randomUUID().toString().replace("-", "").substring(0, 24);
    }

    private static String urlEncoded(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
    }
}
