package io.durablecheckout.activities.payments.stripe;

import com.stripe.net.Webhook;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Stripe-Signature verified with the SDK; the event read as the product's provider notification. */
class StripeWebhooksTest {

    private static final String SECRET = "whsec_test_stripe_endpoint_secret_0123456789";

    static String event(String id, String type, String operationId, long amount) {
        return """
                {"id":"%s","object":"event","api_version":"2025-09-30.clover","created":1764720000,"livemode":false,
                 "pending_webhooks":1,"request":{"id":null,"idempotency_key":null},"type":"%s",
                 "data":{"object":%s}}
                """.formatted(id, type, StripeStub.intent("pi_stub123", operationId, amount, "requires_capture", null, null));
    }

    private static long now() {
        return System.currentTimeMillis() / 1000;
    }

    @Test
    void anEventSignedAsStripeSignsIsAcceptedAndReadAsANotification() throws Exception {
        String payload = event("evt_1", "payment_intent.amount_capturable_updated", "co_1/authorize-payment", 2500);
        String header = Webhook.Signature.generateSignatureHeader(payload, SECRET, now());
        var verified = StripeWebhooks.verify(SECRET, payload, header, 300).orElseThrow();
        assertThat(verified.eventId()).isEqualTo("evt_1");
        assertThat(verified.stale()).isFalse();
        assertThat(new String(verified.notification(), StandardCharsets.UTF_8))
                .contains("\"eventId\":\"evt_1\"").contains("\"operationId\":\"co_1/authorize-payment\"")
                .contains("\"status\":\"AUTHORIZED\"").contains("\"reference\":\"pi_stub123\"")
                .contains("\"tenantId\":\"demo\"").contains("\"amountMinor\":2500").contains("\"currency\":\"EUR\"");
    }

    @Test
    void forgedAlteredOrStaleEventsAreRefusedOrMarked() throws Exception {
        String payload = event("evt_2", "payment_intent.payment_failed", "co_2/authorize-payment", 2500);
        String header = Webhook.Signature.generateSignatureHeader(payload, "whsec_someone_else_entirely_000000", now());
        assertThat(StripeWebhooks.verify(SECRET, payload, header, 300)).isEmpty();
        String genuine = Webhook.Signature.generateSignatureHeader(payload, SECRET, now());
        assertThat(StripeWebhooks.verify(SECRET, payload.replace("2500", "1"), genuine, 300)).isEmpty();
        assertThat(StripeWebhooks.verify(SECRET, payload, "t=abc,v1=zz", 300)).isEmpty();
        assertThat(StripeWebhooks.verify(SECRET, payload, "v1=" + genuine, 300)).isEmpty();
        String old = Webhook.Signature.generateSignatureHeader(payload, SECRET, now() - 900);
        assertThat(StripeWebhooks.verify(SECRET, payload, old, 300)).hasValueSatisfying(v -> assertThat(v.stale()).isTrue());
    }

    @Test
    void eventsTheProductDoesNotReadAreVerifiedAndCarryNoNotification() throws Exception {
        String payload = event("evt_3", "customer.created", "co_3/authorize-payment", 1);
        String header = Webhook.Signature.generateSignatureHeader(payload, SECRET, now());
        assertThat(StripeWebhooks.verify(SECRET, payload, header, 300))
                .hasValueSatisfying(v -> assertThat(v.notification()).isNull());
    }

    /**
     * A cancelled intent (an expired hold, a dashboard's cancel, an abandoned 3-D Secure then voided) can take no money:
     * read as DECLINED, like a failed payment; {@code requires_action} is the authorization's answer, not news.
     */
    @Test
    void aCancelledIntentIsDeclinedAndARequiresActionEventCarriesNoNotification() throws Exception {
        String payload = event("evt_5", "payment_intent.canceled", "co_5/authorize-payment", 2500)
                .replace("\"status\":\"requires_capture\"", "\"status\":\"canceled\"");
        String header = Webhook.Signature.generateSignatureHeader(payload, SECRET, now());
        assertThat(new String(StripeWebhooks.verify(SECRET, payload, header, 300).orElseThrow().notification(),
                StandardCharsets.UTF_8)).contains("\"status\":\"DECLINED\"")
                .contains("\"operationId\":\"co_5/authorize-payment\"").contains("\"amountMinor\":2500");
        String action = event("evt_6", "payment_intent.requires_action", "co_6/authorize-payment", 2500);
        assertThat(StripeWebhooks.verify(SECRET, action, Webhook.Signature.generateSignatureHeader(action, SECRET,
                now()), 300)).hasValueSatisfying(v -> assertThat(v.notification()).isNull());
    }

    /** The product's intents are manual-capture: {@code succeeded} follows a capture and is not an authorization. */
    @Test
    void aSucceededIntentIsTheCapturesEvidenceNotAnAuthorization() throws Exception {
        String payload = event("evt_4", "payment_intent.succeeded", "co_4/authorize-payment", 2500)
                .replace("\"status\":\"requires_capture\"", "\"status\":\"succeeded\"");
        String header = Webhook.Signature.generateSignatureHeader(payload, SECRET, now());
        assertThat(StripeWebhooks.verify(SECRET, payload, header, 300))
                .hasValueSatisfying(v -> assertThat(v.notification()).isNull());
    }
}
