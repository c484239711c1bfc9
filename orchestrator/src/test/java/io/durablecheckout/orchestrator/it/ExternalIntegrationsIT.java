package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.DashboardSession;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.InProcessNode;
import io.durablecheckout.orchestrator.it.support.RefusingSmtpRelay;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.durablecheckout.activities.payments.stripe.fake.StripeFake;
import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;
import jakarta.mail.internet.MimeMessage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The product at its edges, one node in this JVM on its own PostgreSQL: payments through the Stripe adapter and the
 * real SDK against a stub of Stripe's API (WireMock), receipts over SMTP to a real SMTP server (GreenMail, behind a
 * front that refuses the mailbox {@code refused@…} with a 550 as a real server would). Effects are counted where they
 * arrive: PaymentIntents created per operation at the stub, messages per operation at the SMTP server.
 */
class ExternalIntegrationsIT {

    static final GreenMail greenMail = new GreenMail(ServerSetupTest.SMTP.dynamicPort());

    static EmbeddedPostgresServer postgres;
    static JdbcTemplate db;
    static RefusingSmtpRelay smtp;
    static InProcessNode node;
    /** Stripe's API as a stateful fake; every answer it serves must be one Stripe's OpenAPI description allows. */
    static StripeFake stripe;
    static HttpApi api;

    @BeforeAll
    static void start() throws Exception {
        postgres = EmbeddedPostgresServer.start(
                Files.createTempDirectory(Path.of("target").toAbsolutePath(), "edges-pg-"), 0);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(postgres.jdbcUrl());
        ds.setUser("postgres");
        db = new JdbcTemplate(ds);
        greenMail.start();
        smtp = new RefusingSmtpRelay(greenMail.getSmtp().getPort());
        stripe = new StripeFake(9_000); // a slow answer comes after the node stopped waiting (4 s)
        node = InProcessNode.start("edges", postgres.jdbcUrl(), null, List.of(
                "checkout.mail.transport=smtp", "spring.mail.host=127.0.0.1", "spring.mail.port=" + smtp.port(),
                "checkout.mail.from=receipts@shop.example",
                "checkout.payments.provider=stripe", "checkout.payments.stripe.api-key=sk_test_stub",
                "checkout.payments.stripe.webhook-secret=whsec_edges_it_endpoint_secret_000",
                "checkout.payments.stripe.api-base=http://127.0.0.1:" + stripe.port(),
                "checkout.payments.request-timeout=4s", "checkout.workflow.reconciliation-initial-delay=500ms",
                "checkout.workflow.max-attempts=3", "checkout.workflow.retry-initial-delay=200ms",
                "checkout.demo.sku-count=5"));
        api = new HttpApi(node.port());
        // the merchant's names, as PUT /api/v1/admin/tenants/demo/merchant sets them (this node, on a configured
        // database, has no admin key; AdminApiIT drives the endpoint), before any checkout reads them
        db.update("UPDATE tenants SET merchant_name = ?, sender_display_name = ? WHERE tenant_id = 'demo'",
                "Ada's <Tea> & Co.", "Ada's Tea Shop");
    }

    @AfterAll
    static void stop() throws Exception {
        if (node != null) node.close();
        if (smtp != null) smtp.close();
        greenMail.stop();
        if (stripe != null) {
            List<String> violations = stripe.violations();
            stripe.close();
            assertThat(violations).as("answers Stripe's OpenAPI description does not allow").isEmpty();
        }
        if (postgres != null) postgres.close();
    }

    @Test
    void aCompletedCheckoutsReceiptArrivesAtTheSmtpServerOnce() throws Exception {
        String id = startCheckout("bob@example.com");
        api.awaitState(id, "completed", Duration.ofSeconds(60));
        List<MimeMessage> received = receivedFor(id + "/send-receipt");
        assertThat(received).hasSize(1);
        MimeMessage receipt = received.get(0);
        assertThat(receipt.getMessageID()).isEqualTo("<" + id + ".send-receipt@shop.example>");
        assertThat(receipt.getAllRecipients()[0].toString()).isEqualTo("bob@example.com");
        assertThat(GreenMailUtil.getBody(receipt)).contains("SKU-0001").contains("10.00 EUR");
        // nothing recorded at the demo sink: the transport chosen by property replaced it
        assertThat(count("SELECT count(*) FROM mail_sink_messages")).isZero();
        // paid through Stripe: one PaymentIntent created for the operation (its idempotency key), one confirm, and the
        // simulator never called
        assertThat(stripe.effects(StripeFake.Effect.INTENT_CREATED)).containsEntry(id + "/authorize-payment", 1);
        assertThat(stripe.effects(StripeFake.Effect.CHARGE)).containsEntry(id + "/authorize-payment", 1);
        List<LoggedRequest> creates = stripe.server().findAll(anyRequestedFor(urlPathEqualTo("/v1/payment_intents")))
                .stream()
                .filter(r -> (id + "/authorize-payment:create").equals(r.getHeader("Idempotency-Key"))).toList();
        assertThat(creates).hasSize(1);
        assertThat(creates.get(0).getBodyAsString()).contains("capture_method=manual").contains("amount=1000");
        assertThat(stripe.server().findAll(anyRequestedFor(urlPathMatching("/v1/payment_intents/.*/confirm"))).stream()
                .filter(r -> (id + "/authorize-payment:confirm").equals(r.getHeader("Idempotency-Key")))).hasSize(1);
        String intentId = db.queryForObject("SELECT intent_id FROM stripe_payment_intents WHERE operation_id = ?",
                String.class, id + "/authorize-payment");
        assertThat(api.get("/api/v1/checkouts/" + id).json().path("providerReference").asText()).isEqualTo(intentId);
        assertThat(count("SELECT count(*) FROM simulator_calls")).isZero();
    }

    /**
     * Issue 52, acceptance 2: a receipt and a cancellation notice, read at a real SMTP server, show the items by name
     * with their prices, shipping and a discount, the total, the merchant (on From, by display name), the merchant's
     * order reference (never the Idempotency-Key), what happened to the money; the notice threads under the receipt.
     */
    @Test
    void theReceiptAndTheCancellationNoticeShowItemsPricesTotalsTheMerchantAndThread() throws Exception {
        String idempotencyKey = "edges-receipt-" + UUID.randomUUID();
        String body = """
                {"items":[{"sku":"SKU-0002","quantity":2,"name":"Blue <mug>","unitPrice":1250},
                          {"sku":"SKU-0003","quantity":1,"name":"Green tea","unitPrice":999}],
                 "shipping":495,"discount":200,"orderReference":"ORD-4711",
                 "amount":{"minor":3794,"currency":"EUR"},"paymentToken":"pm_card_visa",
                 "customerEmail":"carol@example.com"}""";
        HttpApi.Response created = api.startCheckout(idempotencyKey, body);
        assertThat(created.status()).as(created.body()).isEqualTo(202);
        String id = created.json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'completed'", id) == 1);

        MimeMessage receipt = receivedFor(id + "/send-receipt").get(0);
        jakarta.mail.internet.InternetAddress from = (jakarta.mail.internet.InternetAddress) receipt.getFrom()[0];
        assertThat(from.getAddress()).isEqualTo("receipts@shop.example");
        assertThat(from.getPersonal()).isEqualTo("Ada's Tea Shop");
        assertThat(receipt.getSubject()).isEqualTo("Your order ORD-4711 at Ada's <Tea> & Co. is confirmed");
        String receiptId = "<" + id + ".send-receipt@shop.example>";
        assertThat(receipt.getMessageID()).isEqualTo(receiptId);
        String[] receiptParts = alternatives(receipt);
        assertThat(receiptParts[0]).contains("2 x Blue <mug> (SKU-0002)").contains("12.50 EUR").contains("25.00 EUR")
                .contains("1 x Green tea (SKU-0003)").contains("9.99 EUR").contains("Shipping").contains("4.95 EUR")
                .contains("Discount").contains("-2.00 EUR").containsPattern("Total +37.94 EUR")
                .contains("Your payment method was charged 37.94 EUR on ").doesNotContain("nothing has been charged")
                .contains("Order reference: ORD-4711").contains("Ada's <Tea> & Co.").doesNotContain(idempotencyKey);
        assertThat(receiptParts[1]).contains("Blue &lt;mug&gt;").contains("<strong>37.94 EUR</strong>")
                .contains("Ada&#39;s &lt;Tea&gt; &amp; Co.").doesNotContain("<mug>").doesNotContain(idempotencyKey);

        HttpApi.Response cancel = api.send("POST", "/api/v1/checkouts/" + id + "/cancel", HttpApi.DEMO_KEY, Map.of(),
                "{\"reason\":\"changed my mind\"}");
        assertThat(cancel.status()).as(cancel.body()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> receivedFor(id + "/send-cancellation-notice").size() == 1);
        MimeMessage notice = receivedFor(id + "/send-cancellation-notice").get(0);
        assertThat(((jakarta.mail.internet.InternetAddress) notice.getFrom()[0]).getPersonal()).isEqualTo("Ada's Tea Shop");
        assertThat(notice.getSubject()).isEqualTo("Your order ORD-4711 at Ada's <Tea> & Co. was cancelled");
        assertThat(notice.getHeader("In-Reply-To", null)).isEqualTo(receiptId);
        assertThat(notice.getHeader("References", null)).isEqualTo(receiptId);
        assertThat(notice.getMessageID()).isEqualTo("<" + id + ".send-cancellation-notice@shop.example>");
        String[] noticeParts = alternatives(notice);
        assertThat(noticeParts[0]).contains("2 x Blue <mug> (SKU-0002)").containsPattern("Total +37.94 EUR")
                .contains("Refund of 37.94 EUR confirmed on ").contains("returns to your payment method")
                .doesNotContain("you were not charged")
                .contains("Order reference: ORD-4711").doesNotContain("being returned").doesNotContain(idempotencyKey);
        assertThat(noticeParts[1]).contains("Blue &lt;mug&gt;").contains("Refund of 37.94 EUR confirmed on ");
    }

    /** The message's text and HTML: a multipart/alternative of exactly those two. */
    private static String[] alternatives(MimeMessage message) throws Exception {
        assertThat(message.getContentType()).startsWith("multipart/alternative");
        jakarta.mail.internet.MimeMultipart parts = (jakarta.mail.internet.MimeMultipart) message.getContent();
        assertThat(parts.getCount()).isEqualTo(2);
        assertThat(parts.getBodyPart(0).getContentType()).startsWith("text/plain");
        assertThat(parts.getBodyPart(1).getContentType()).startsWith("text/html");
        return new String[] {(String) parts.getBodyPart(0).getContent(), (String) parts.getBodyPart(1).getContent()};
    }

    @Test
    void aRecipientTheServerRefusesForGoodIsShownInTheCheckoutAndTheDashboard() {
        String id = startCheckout("refused@example.com");
        api.awaitState(id, "manual_review", Duration.ofSeconds(60));
        HttpApi.Response view = api.send("GET", "/api/v1/checkouts/" + id, HttpApi.OPERATOR_KEY, java.util.Map.of(), null);
        assertThat(view.status()).isEqualTo(200);
        assertThat(view.json().path("manualReview").path("blockedStep").asText()).isEqualTo("send-receipt");
        assertThat(view.json().path("manualReview").path("evidence").asText()).contains("final: ").contains("550 5.1.1")
                .doesNotContain("refused@example.com");
        DashboardSession operator = new DashboardSession(node.port());
        assertThat(operator.signIn("operator", HttpApi.OPERATOR_KEY)).doesNotContain("error");
        HttpApi.Response dashboard = operator.get("/dashboard/api/checkouts/" + id);
        assertThat(dashboard.status()).isEqualTo(200);
        assertThat(dashboard.body()).contains("550 5.1.1").contains("final: ");
        assertThat(smtp.refusalsOf("refused@example.com")).as("refused once, never asked again").isEqualTo(1);
        assertThat(count("SELECT count(*) FROM receipt_operations WHERE operation_id = ? AND status = 'UNDELIVERABLE'",
                id + "/send-receipt")).isEqualTo(1);
        assertThat(receivedFor(id + "/send-receipt")).isEmpty();
    }

    @Test
    void aTimeoutAfterTheChargeIsUnknownAndTheLookupUnderTheOriginalOperationCompletesIt() throws Exception {
        String id = startCheckout("carol@example.com", StripeFake.SLOW_AFTER_CHARGE);
        String op = id + "/authorize-payment";
        api.awaitState(id, "completed", Duration.ofSeconds(90));
        // the node gave up waiting, so the outcome was unknown, never declined; the lookup under the original
        // operation found the intent authorized: charged once, at Stripe, and no second intent
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?"
                + " AND payloadtype LIKE '%.PaymentOutcomeUnknownEvent'", id)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?"
                + " AND payloadtype LIKE '%.PaymentDeclinedEvent'", id)).isZero();
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?"
                + " AND payloadtype LIKE '%.PaymentReconciliationRequestedEvent'"
                + " AND convert_from(payload, 'UTF8')::jsonb -> 'authorizationOperationId' ->> 'value' = ?", id, op))
                .isPositive();
        assertThat(stripe.effects(StripeFake.Effect.INTENT_CREATED)).containsEntry(op, 1);
        assertThat(stripe.effects(StripeFake.Effect.CHARGE)).containsEntry(op, 1);
        assertThat(receivedFor(id + "/send-receipt")).hasSize(1);
    }

    private static String startCheckout(String email) {
        return startCheckout(email, "pm_card_visa");
    }

    private static String startCheckout(String email, String paymentMethod) {
        String body = HttpApi.checkoutBody("SKU-0001", 1, 1000, paymentMethod).replace("a@example.com", email);
        HttpApi.Response r = api.startCheckout("edges-" + UUID.randomUUID(), body);
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("checkoutId").asText();
    }

    private static List<MimeMessage> receivedFor(String operationId) {
        return Arrays.stream(greenMail.getReceivedMessages()).filter(m -> {
            try {
                return operationId.equals(m.getHeader("X-Checkout-Operation", null));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).toList();
    }

    private static long count(String sql, Object... args) {
        Long n = db.queryForObject(sql, Long.class, args);
        return n == null ? 0 : n;
    }
}
