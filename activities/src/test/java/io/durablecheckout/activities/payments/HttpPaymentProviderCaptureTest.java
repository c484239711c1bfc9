package io.durablecheckout.activities.payments;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.durablecheckout.activities.payments.PaymentProvider.CaptureAnswer;
import io.durablecheckout.activities.payments.PaymentProvider.CaptureStatus;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The generic protocol's capture over real HTTP: the request's shape and key, and how each answer maps. A timeout is
 * unknown (it may have captured), never declined; only a request certainly not processed is unavailable.
 */
class HttpPaymentProviderCaptureTest {

    private static final CheckoutId CHECKOUT = new CheckoutId("chk-http-capture");
    private static final OperationId AUTH = OperationId.of(CHECKOUT, Step.AUTHORIZE_PAYMENT);
    private static final OperationId CAPTURE = OperationId.of(CHECKOUT, Step.CAPTURE_PAYMENT);
    private static final Money AMOUNT = new Money(1_999, "EUR");

    private WireMockServer server;
    private HttpPaymentProvider provider;

    @BeforeEach
    void start() {
        server = new WireMockServer(wireMockConfig().dynamicPort().bindAddress("127.0.0.1"));
        server.start();
        provider = new HttpPaymentProvider(() -> "http://127.0.0.1:" + server.port(), Duration.ofSeconds(1),
                Duration.ofSeconds(10)); // a loaded machine's first WireMock answer can take seconds
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    private CaptureAnswer answering(ResponseDefinitionBuilder response) {
        server.resetAll();
        server.stubFor(post(anyUrl()).willReturn(response));
        return provider.capture(AUTH, CAPTURE, AMOUNT);
    }

    private static ResponseDefinitionBuilder json(int status, String body) {
        return aResponse().withStatus(status).withHeader("Content-Type", "application/json").withBody(body);
    }

    private static String body(String status, String reason) {
        return "{\"operationId\":\"" + CAPTURE + "\",\"authorizationOperationId\":\"" + AUTH + "\",\"status\":\""
                + status + "\",\"reference\":" + ("CAPTURED".equals(status) ? "\"SIM-CAPTURE-1\"" : "null")
                + ",\"reason\":" + (reason == null ? "null" : "\"" + reason + "\"")
                + ("CAPTURED".equals(status) ? ",\"amountMinor\":1999,\"currency\":\"EUR\"" : "") + "}";
    }

    @Test
    void aCaptureIsPostedUnderTheCaptureOperationIdAndItsAnswerRead() {
        CaptureAnswer captured = answering(json(200, body("CAPTURED", null)));

        assertThat(captured).isEqualTo(new CaptureAnswer(CaptureStatus.CAPTURED, "SIM-CAPTURE-1", AMOUNT, null));
        LoggedRequest request = server.getAllServeEvents().get(0).getRequest();
        assertThat(request.getUrl()).isEqualTo("/v1/authorizations/" + AUTH + "/capture");
        assertThat(request.getHeader("Idempotency-Key")).isEqualTo(CAPTURE.value());
        assertThat(request.getBodyAsString()).contains("\"operationId\":\"" + CAPTURE + "\"")
                .contains("\"amountMinor\":1999").contains("\"currency\":\"EUR\"");
    }

    @Test
    void aRefusalForGoodIsDeclined() {
        CaptureAnswer declined = answering(json(200, body("DECLINED", "insufficient funds")));
        assertThat(declined.status()).isEqualTo(CaptureStatus.DECLINED);
        assertThat(declined.detail()).isEqualTo("capture declined: insufficient funds");
        CaptureAnswer rejected = answering(json(409, body("REJECTED", "authorization voided")));
        assertThat(rejected.status()).isEqualTo(CaptureStatus.DECLINED);
        assertThat(rejected.detail()).isEqualTo("capture rejected: authorization voided");
    }

    @Test
    void aTimeoutOrADroppedConnectionOrAnUnreadableAnswerIsUnknownNeverDeclined() {
        server.stubFor(post(anyUrl()).willReturn(json(200, body("CAPTURED", null)).withFixedDelay(3_000)));
        assertThat(new HttpPaymentProvider(() -> "http://127.0.0.1:" + server.port(), Duration.ofSeconds(1),
                Duration.ofMillis(700)).capture(AUTH, CAPTURE, AMOUNT).status()).isEqualTo(CaptureStatus.UNKNOWN);
        assertThat(answering(aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)).status())
                .isEqualTo(CaptureStatus.UNKNOWN);
        assertThat(answering(json(500, "{}")).status()).as("a 5xx other than 503 may have captured")
                .isEqualTo(CaptureStatus.UNKNOWN);
        assertThat(answering(json(200, "not json")).status()).isEqualTo(CaptureStatus.UNKNOWN);
        assertThat(answering(json(200, body("PENDING", null))).status()).isEqualTo(CaptureStatus.UNKNOWN);
    }

    @Test
    void aRequestCertainlyNotProcessedIsUnavailable() throws IOException {
        assertThat(answering(json(503, "{}")).status()).isEqualTo(CaptureStatus.UNAVAILABLE);
        assertThat(answering(json(429, "{}")).status()).isEqualTo(CaptureStatus.UNAVAILABLE);
        assertThat(answering(json(404, "")).status()).as("a wrong URL: nothing processed")
                .isEqualTo(CaptureStatus.UNAVAILABLE);
        assertThat(answering(json(400, "{\"operationId\":\"" + CAPTURE + "\",\"status\":\"INVALID\"}")).status())
                .isEqualTo(CaptureStatus.UNAVAILABLE);
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        int port = closed;
        CaptureAnswer refused = new HttpPaymentProvider(() -> "http://127.0.0.1:" + port, Duration.ofMillis(500),
                Duration.ofMillis(500)).capture(AUTH, CAPTURE, AMOUNT);
        assertThat(refused.status()).isEqualTo(CaptureStatus.UNAVAILABLE);
        assertThat(refused.detail()).startsWith("cannot connect to 127.0.0.1:" + port);
    }
}
