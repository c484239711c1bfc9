package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import io.durablecheckout.orchestrator.it.support.StandardWebhooksSigner;

import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.activities.payments.WebhookSecret;
import io.durablecheckout.api.values.TenantId;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 10, acceptance 3: a notification for a checkout whose payment is unknown would settle it (confirm, sell the
 * stock, send the receipt). Every forged, stale, future-dated, replayed (also with its signature re-encoded) or
 * mismatched one is refused and changes nothing (issue 23 added the future-dated and re-encoded ones); the
 * correctly signed, matching one is applied (the control that shows the refusals are not vacuous). Since issue 25
 * the scheme is Standard Webhooks: every signature here is made by the official library
 * ({@link StandardWebhooksSigner}).
 */
class WebhookSecurityIT extends IntegrationTestBase {

    /** The public constant every earlier build fell back to. */
    private static final String OLD_PUBLIC_SECRET = "simulator-webhook-secret";

    @Autowired
    WebhookSecret secret;

    @Autowired
    InventoryAdmin inventory;

    @Test
    void forgedStaleMismatchedAndReplayedNotificationsChangeNothingAndTheGenuineOneIsApplied() throws Exception {
        String id = unknownPaymentCheckout();
        long now = System.currentTimeMillis() / 1000;

        // today's attack: signed with the old public constant, old header and new headers alike
        String forged = notification(id, "demo", 2500, "EUR");
        assertThat(postOldStyle(forged, hex(OLD_PUBLIC_SECRET, forged)).status()).isEqualTo(401);
        assertThat(post(forged, now, sign(OLD_PUBLIC_SECRET, now, forged)).status()).isEqualTo(401);
        // a signature from the real secret over another timestamp is no signature for this one
        assertThat(post(forged, now, sign(secret.value(), now - 1, forged)).status()).isEqualTo(401);
        // nor over another notification id (the body's eventId is what webhook-id must name)
        assertThat(send(forged, StandardWebhooksSigner.headers("evt-other", now,
                StandardWebhooksSigner.signature(secret.value(), "evt-other", now, forged))).status()).isEqualTo(400);
        // malformed signature lists are refused, not a server error
        for (String junk : List.of("v1", "v1,", ",,,", "v2,abc", "v1,not base64!")) {
            assertThat(post(forged, now, junk).status()).as(junk).isEqualTo(401);
        }
        assertThat(notificationRows(id)).isZero();

        // stale: correctly signed, but ten minutes ago (tolerance five)
        long stale = now - 600;
        HttpApi.Response staleAnswer = post(forged, stale, sign(secret.value(), stale, forged));
        assertThat(staleAnswer.status()).isEqualTo(401);
        assertThat(staleAnswer.json().get("type").asText()).endsWith("stale-signature");
        assertThat(notificationRows(id)).isZero();

        // future-dated: correctly signed and matching, but ten minutes ahead of this clock (tolerance five either way)
        long future = now + 600;
        String early = notification(id, "demo", 2500, "EUR");
        HttpApi.Response futureAnswer = post(early, future, sign(secret.value(), future, early));
        assertThat(futureAnswer.status()).as(futureAnswer.body()).isEqualTo(401);
        assertThat(futureAnswer.json().get("type").asText()).endsWith("stale-signature");
        assertThat(notificationRows(id)).isZero();
        assertThat(authorizedEvents(id)).isZero();

        // correctly signed but not this operation's amount, currency or tenant: a dispute, nothing else
        for (String mismatched : List.of(notification(id, "demo", 1, "EUR"), notification(id, "demo", 2500, "USD"),
                notification(id, "another-tenant", 2500, "EUR"))) {
            HttpApi.Response answer = post(mismatched, now, sign(secret.value(), now, mismatched));
            assertThat(answer.status()).as(answer.body()).isEqualTo(409);
            assertThat(answer.json().get("type").asText()).endsWith("notification-disputed");
        }
        assertThat(count("SELECT count(*) FROM provider_notifications WHERE checkout_id = ? AND dispute IS NOT NULL", id))
                .isEqualTo(3);
        assertThat(count("SELECT count(*) FROM provider_notifications WHERE checkout_id = ? AND dispute LIKE '%tenant%'", id))
                .isEqualTo(1);
        assertThat(authorizedEvents(id)).isZero();

        // a reference that could not be stored whole is refused, not cut
        String longReference = notification(id, "demo", 2500, "EUR").replace("SIM-FORGED", "R".repeat(300));
        assertThat(post(longReference, now, sign(secret.value(), now, longReference)).status())
                .isEqualTo(400);
        assertThat(count("SELECT count(*) FROM provider_notifications WHERE checkout_id = ? AND dispute IS NULL", id))
                .isZero();

        // the genuine notification settles the unknown payment ...
        String genuine = notification(id, "demo", 2500, "EUR");
        String signature = sign(secret.value(), now, genuine);
        HttpApi.Response accepted = post(genuine, now, signature);
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        assertThat(accepted.json().get("result").asText()).isEqualTo("delivered");
        await().atMost(Duration.ofSeconds(10)).until(() -> authorizedEvents(id) == 1);

        // ... and the very same request again is a replay: refused, nothing recorded
        long before = count("SELECT coalesce(sum(deliveries), 0) FROM provider_notifications WHERE checkout_id = ?", id);
        HttpApi.Response replayed = post(genuine, now, signature);
        assertThat(replayed.status()).isEqualTo(409);
        assertThat(replayed.json().get("type").asText()).endsWith("replayed-notification");
        assertThat(count("SELECT coalesce(sum(deliveries), 0) FROM provider_notifications WHERE checkout_id = ?", id))
                .isEqualTo(before);
        assertThat(authorizedEvents(id)).isEqualTo(1);

        // the same delivery with its signature list re-written (it still verifies: one good signature is enough) is
        // the same delivery: refused, not counted
        for (String reencoded : List.of(" " + signature + " ", signature + " " + signature,
                sign(OLD_PUBLIC_SECRET, now, genuine) + " " + signature)) {
            HttpApi.Response again = post(genuine, now, reencoded);
            assertThat(again.status()).as(reencoded + ": " + again.body()).isEqualTo(409);
            assertThat(again.json().get("type").asText()).endsWith("replayed-notification");
        }
        assertThat(count("SELECT coalesce(sum(deliveries), 0) FROM provider_notifications WHERE checkout_id = ?", id))
                .isEqualTo(before);
        assertThat(authorizedEvents(id)).isEqualTo(1);

        // the control: the provider's redelivery, signed anew with its own timestamp, is counted once, and applied
        // no further
        long resent = now - 1;
        HttpApi.Response redelivered = post(genuine, resent, sign(secret.value(), resent, genuine));
        assertThat(redelivered.status()).as(redelivered.body()).isEqualTo(202);
        assertThat(redelivered.json().get("result").asText()).isEqualTo("duplicate");
        assertThat(count("SELECT coalesce(sum(deliveries), 0) FROM provider_notifications WHERE checkout_id = ?", id))
                .isEqualTo(before + 1);
        assertThat(authorizedEvents(id)).isEqualTo(1);
    }

    /**
     * Issue 52, acceptance 3: the secret the demo generated is in the standard's form, served to admins only (and
     * audited); the official library's default constructor, {@code new Webhook(secret)}, signs with it a notification
     * the product accepts. A notification missing a header is told which one.
     */
    @Test
    void theOfficialLibrarysDefaultConstructorSignsWithTheSecretShownToTheAdminAndMissingHeadersAreNamed()
            throws Exception {
        assertThat(secret.value()).as("the demo's generated secret").startsWith("whsec_");
        for (String notAdmin : List.of(HttpApi.DEMO_KEY, HttpApi.OPERATOR_KEY)) {
            assertThat(api.send("GET", "/api/v1/admin/webhook-secret", notAdmin, Map.of(), null).status())
                    .isEqualTo(403);
        }
        HttpApi.Response shown = api.send("GET", "/api/v1/admin/webhook-secret", AdminApiIT.ADMIN_KEY, Map.of(), null);
        assertThat(shown.status()).as(shown.body()).isEqualTo(200);
        String whsec = shown.json().get("secret").asText();
        assertThat(whsec).startsWith("whsec_");
        assertThat(count("SELECT count(*) FROM audit_log WHERE action = 'webhook-secret.show'")).isPositive();

        String id = unknownPaymentCheckout();
        long now = System.currentTimeMillis() / 1000;
        String body = notification(id, "demo", 2500, "EUR");
        String msgId = StandardWebhooksSigner.idOf(body);
        com.standardwebhooks.Webhook official = new com.standardwebhooks.Webhook(whsec);
        Map<String, String> headers = StandardWebhooksSigner.headers(msgId, now, official.sign(msgId, now, body));

        for (String header : List.of("webhook-id", "webhook-timestamp", "webhook-signature")) {
            Map<String, String> without = new java.util.HashMap<>(headers);
            without.remove(header);
            HttpApi.Response refused = send(body, without);
            assertThat(refused.status()).as(refused.body()).isEqualTo(401);
            assertThat(refused.json().get("type").asText()).endsWith("missing-signature-header");
            assertThat(refused.json().get("detail").asText()).startsWith("The notification has no " + header + " header");
        }
        assertThat(authorizedEvents(id)).isZero();

        HttpApi.Response accepted = send(body, headers);
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        assertThat(accepted.json().get("result").asText()).isEqualTo("delivered");
        await().atMost(Duration.ofSeconds(10)).until(() -> authorizedEvents(id) == 1);
    }

    @Test
    void stripesWebhookSignedWithTheSdkSettlesTheUnknownPaymentAForgedOrReplayedOneIsRefused() throws Exception {
        String id = unknownPaymentCheckout();
        String event = "{\"id\":\"evt_" + UUID.randomUUID().toString().replace("-", "") + "\",\"object\":\"event\","
                + "\"api_version\":\"2025-09-30.clover\",\"created\":1764720000,\"livemode\":false,"
                + "\"pending_webhooks\":1,\"request\":{\"id\":null,\"idempotency_key\":null},"
                + "\"type\":\"payment_intent.amount_capturable_updated\",\"data\":{\"object\":{\"id\":\"pi_it1\","
                + "\"object\":\"payment_intent\",\"amount\":2500,\"amount_capturable\":2500,\"currency\":\"eur\","
                + "\"capture_method\":\"manual\",\"status\":\"requires_capture\",\"metadata\":{\"operation_id\":\""
                + id + "/authorize-payment\",\"tenant_id\":\"demo\"}}}}";
        long now = System.currentTimeMillis() / 1000;
        String forged = com.stripe.net.Webhook.Signature.generateSignatureHeader(event, "whsec_not_ours_0000000000000", now);
        assertThat(sendTo("/stripe", event, Map.of("Stripe-Signature", forged)).status()).isEqualTo(401);
        assertThat(notificationRows(id)).isZero();

        String signed = com.stripe.net.Webhook.Signature.generateSignatureHeader(event, STRIPE_WEBHOOK_SECRET, now);
        HttpApi.Response accepted = sendTo("/stripe", event, Map.of("Stripe-Signature", signed));
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        assertThat(accepted.json().get("result").asText()).isEqualTo("delivered");
        await().atMost(Duration.ofSeconds(10)).until(() -> authorizedEvents(id) == 1);
        assertThat(count("SELECT count(*) FROM provider_notifications WHERE checkout_id = ? AND provider_reference = 'pi_it1'",
                id)).isEqualTo(1);

        HttpApi.Response replayed = sendTo("/stripe", event, Map.of("Stripe-Signature", signed));
        assertThat(replayed.status()).isEqualTo(409);
        assertThat(replayed.json().get("type").asText()).endsWith("replayed-notification");
        assertThat(authorizedEvents(id)).isEqualTo(1);
    }

    @Test
    void anOversizeNotificationIsRefusedBeforeItsSignatureIsLookedAt() throws Exception {
        String huge = "{\"pad\":\"" + "x".repeat(64 * 1024) + "\"}";
        long now = System.currentTimeMillis() / 1000;
        HttpApi.Response answer = post(huge, now, sign(secret.value(), now, huge));
        assertThat(answer.status()).isEqualTo(413);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** A checkout whose authorization timed out at the provider (tok_unknown): only evidence can settle it. */
    private String unknownPaymentCheckout() {
        String sku = "W-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, 10);
        HttpApi.Response r = api.startCheckout("wh-" + UUID.randomUUID(), HttpApi.checkoutBody(sku, 1, 2500, "tok_unknown"));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        String id = r.json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> count(
                "SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? "
                        + "AND payloadtype LIKE '%.PaymentOutcomeUnknownEvent'", id) > 0);
        return id;
    }

    private long authorizedEvents(String id) {
        return count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? "
                + "AND payloadtype LIKE '%.PaymentAuthorizedEvent'", id);
    }

    private long notificationRows(String id) {
        return count("SELECT count(*) FROM provider_notifications WHERE checkout_id = ?", id);
    }

    private static String notification(String id, String tenant, long amount, String currency) {
        return "{\"eventId\":\"evt-" + UUID.randomUUID() + "\",\"operationId\":\"" + id + "/authorize-payment\","
                + "\"status\":\"AUTHORIZED\",\"reference\":\"SIM-FORGED\",\"tenantId\":\"" + tenant + "\","
                + "\"amountMinor\":" + amount + ",\"currency\":\"" + currency + "\",\"occurredAt\":\"2026-01-01T00:00:00Z\"}";
    }

    private HttpApi.Response post(String body, long timestamp, String signature) throws Exception {
        return send(body, StandardWebhooksSigner.headers(StandardWebhooksSigner.idOf(body), timestamp, signature));
    }

    private static String sign(String secret, long timestamp, String body) {
        return StandardWebhooksSigner.signature(secret, StandardWebhooksSigner.idOf(body), timestamp, body);
    }

    private HttpApi.Response postOldStyle(String body, String signature) throws Exception {
        return send(body, Map.of("X-Simulator-Signature", signature));
    }

    private HttpApi.Response send(String body, Map<String, String> headers) throws Exception {
        return sendTo("", body, headers);
    }

    private HttpApi.Response sendTo(String suffix, String body, Map<String, String> headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/v1/payment-callbacks"
                        + suffix))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(b::header);
        HttpResponse<String> r = HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new HttpApi.Response(r.statusCode(), r.headers().map(), r.body());
    }

    private static String hex(String secret, String body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
    }
}
