package io.durablecheckout.activities.payments.stripe;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.stripe.StripeClient;
import io.durablecheckout.activities.payments.stripe.fake.StripeOpenApi;

import java.util.List;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;

/**
 * Stripe's API on a loopback port (WireMock), answering with bodies of Stripe's shapes; on close, every answer it
 * served is checked against Stripe's published OpenAPI description ({@link StripeOpenApi}).
 */
final class StripeStub implements AutoCloseable {

    final WireMockServer server = new WireMockServer(wireMockConfig().dynamicPort().bindAddress("127.0.0.1"));

    StripeStub() {
        server.start();
    }

    /** The real SDK, pointed at the stub; no retries of its own (the workflow retries). */
    StripeClient client(int readTimeoutMillis) {
        return StripeClient.builder().setApiKey("sk_test_stub").setApiBase("http://127.0.0.1:" + server.port())
                .setMaxNetworkRetries(0).setReadTimeout(readTimeoutMillis).setConnectTimeout(5_000).build();
    }

    List<LoggedRequest> requests(String method, String pathRegex) {
        return server.findAll(anyRequestedFor(urlPathMatching(pathRegex))).stream()
                .filter(r -> r.getMethod().getName().equals(method)).toList();
    }

    static String intent(String id, String operationId, long amount, String status, String lastError, String nextAction) {
        return """
                {"id":"%s","object":"payment_intent","amount":%d,"amount_capturable":%d,"amount_details":{"tip":{}},
                 "amount_received":%d,"application":null,"application_fee_amount":null,"automatic_payment_methods":null,
                 "canceled_at":%s,"cancellation_reason":null,"capture_method":"manual",
                 "client_secret":"%s_secret_stub","confirmation_method":"automatic","created":1764720000,
                 "currency":"eur","customer":null,"description":null,"last_payment_error":%s,"latest_charge":%s,
                 "livemode":false,"metadata":{"operation_id":"%s","tenant_id":"demo"},"next_action":%s,
                 "on_behalf_of":null,"payment_method":"pm_card_visa",
                 "payment_method_options":{},"payment_method_types":["card"],"processing":null,"receipt_email":null,
                 "review":null,"setup_future_usage":null,"shipping":null,"statement_descriptor":null,
                 "statement_descriptor_suffix":null,"status":"%s","transfer_data":null,"transfer_group":null}
                """.formatted(id, amount, "requires_capture".equals(status) ? amount : 0,
                "succeeded".equals(status) ? amount : 0, "canceled".equals(status) ? "1764720100" : "null", id,
                lastError == null ? "null" : lastError,
                "requires_capture".equals(status) || "succeeded".equals(status) ? "\"ch_" + id.substring(3) + "\"" : "null",
                operationId, nextAction == null ? "null" : nextAction, status);
    }

    static String error(String type, String code, String declineCode) {
        // Stripe leaves out what does not apply (its schema has no null for code or decline_code)
        return "{\"error\":{\"type\":\"" + type + "\""
                + (code == null ? "" : ",\"code\":\"" + code + "\"")
                + (declineCode == null ? "" : ",\"decline_code\":\"" + declineCode + "\"")
                + ",\"message\":\"stubbed " + type + "\"}}";
    }

    static String search(String... intents) {
        return "{\"object\":\"search_result\",\"data\":[" + String.join(",", intents)
                + "],\"has_more\":false,\"next_page\":null,\"url\":\"/v1/payment_intents/search\"}";
    }

    static String refund(String id, String intentId, long amount) {
        return """
                {"id":"%s","object":"refund","amount":%d,"balance_transaction":null,"charge":"ch_%s","created":1764720200,
                 "currency":"eur","metadata":{},"payment_intent":"%s","reason":null,
                 "receipt_number":null,"source_transfer_reversal":null,"status":"succeeded","transfer_reversal":null}
                """.formatted(id, amount, intentId.substring(3), intentId);
    }

    /** Every answer served must be one Stripe's published description allows (a stub can't invent a shape). */
    @Override
    public void close() {
        try {
            List<String> violations = StripeOpenApi.violations(server);
            if (!violations.isEmpty()) {
                throw new AssertionError("stubbed answers Stripe's OpenAPI description does not allow:\n"
                        + String.join("\n", violations));
            }
        } finally {
            server.stop();
        }
    }
}
