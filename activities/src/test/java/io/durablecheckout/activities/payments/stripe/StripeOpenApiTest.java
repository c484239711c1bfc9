package io.durablecheckout.activities.payments.stripe;

import io.durablecheckout.activities.payments.stripe.fake.StripeOpenApi;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The schema check itself can fail: a body Stripe's description does not allow is reported, one it allows is not. */
class StripeOpenApiTest {

    @Test
    void aPaymentIntentOfStripesShapeValidatesAndOneWithAWrongTypeDoesNot() {
        String good = StripeStub.intent("pi_1", "co_1/authorize-payment", 1000, "requires_capture", null, null);
        assertThat(StripeOpenApi.violations("POST", "/v1/payment_intents/pi_1/confirm", 200, good)).isEmpty();
        String amountAsText = good.replace("\"amount\":1000", "\"amount\":\"1000\"");
        assertThat(StripeOpenApi.violations("POST", "/v1/payment_intents/pi_1/confirm", 200, amountAsText))
                .anyMatch(v -> v.contains("amount"));
        String unknownStatus = good.replace("\"status\":\"requires_capture\"", "\"status\":\"authorized\"");
        assertThat(StripeOpenApi.violations("POST", "/v1/payment_intents/pi_1/confirm", 200, unknownStatus))
                .anyMatch(v -> v.contains("status"));
    }

    @Test
    void stripesErrorShapeValidatesForAnErrorStatus() {
        assertThat(StripeOpenApi.violations("POST", "/v1/payment_intents", 402,
                StripeStub.error("card_error", "card_declined", "generic_decline"))).isEmpty();
    }
}
