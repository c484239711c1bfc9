package io.durablecheckout.activities.receipts;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.GreenMailUtil;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.durablecheckout.activities.ActivityMetrics;
import io.durablecheckout.activities.PostgresTestSupport;
import io.durablecheckout.activities.RecordingEventGateway;
import io.durablecheckout.activities.ResourceMutants;
import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.ReceiptDeliverySucceededEvent;
import io.durablecheckout.api.checkout.ReceiptRequestedEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.mail.javamail.JavaMailSenderImpl;

import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import static io.durablecheckout.activities.TestIntents.lease;
import static io.durablecheckout.activities.TestIntents.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Receipts over SMTP, counted at a real SMTP server in this JVM (GreenMail): one message per operation whatever the
 * redeliveries; across a crash between the server's acceptance and the commit, one resend with the same
 * {@code Message-ID} (decision 63); a 4xx or a dropped connection is retryable, a 5xx for the recipient is final,
 * recorded, and nothing is sent again.
 */
class SmtpReceiptsTest extends PostgresTestSupport {

    @RegisterExtension
    static GreenMailExtension greenMail = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

    private static final TenantId TENANT = new TenantId("t1");
    private static final String DOMAIN = "shop.example";

    /** The port the resource sends through; a test points it at GreenMail or a scripted server. */
    private final SwitchablePort mail = new SwitchablePort();
    private final ReceiptsResource receipts = new ReceiptsResource(dataSource, mail, ResourceMutants.NONE, vault);

    private static SmtpMailPort smtp(int port) {
        JavaMailSenderImpl sender = new JavaMailSenderImpl();
        sender.setHost("127.0.0.1");
        sender.setPort(port);
        Properties props = sender.getJavaMailProperties();
        props.put("mail.smtp.connectiontimeout", "5000");
        props.put("mail.smtp.timeout", "5000");
        return new SmtpMailPort(sender, "receipts@" + DOMAIN, DOMAIN);
    }

    private SmtpMailPort greenMailPort() {
        return smtp(greenMail.getSmtp().getPort());
    }

    private DeliveryOutcome send(CheckoutId id, long token) {
        return inTransaction(() -> receipts.send(ReceiptsResource.Kind.RECEIPT, id, TENANT,
                OperationId.of(id, Step.SEND_RECEIPT), token(token),
                new OutboundMessage("ada@example.com", "subject", "text", "<p>html</p>")));
    }

    private static List<MimeMessage> receivedFor(CheckoutId id) {
        return Arrays.stream(greenMail.getReceivedMessages()).filter(m -> {
            try {
                return OperationId.of(id, Step.SEND_RECEIPT).value()
                        .equals(m.getHeader(SmtpMailPort.OPERATION_HEADER, null));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).toList();
    }

    @Test
    void aReceiptWithItsLinesAndAmountArrivesOnceWhateverTheRedeliveries() throws Exception {
        mail.to(greenMailPort());
        CheckoutId id = new CheckoutId("chk-smtp1");
        RecordingEventGateway events = new RecordingEventGateway();
        ReceiptsWorker worker = new ReceiptsWorker(receipts, events, new ActivityMetrics(new SimpleMeterRegistry()));
        OutboundMessage message = ReceiptsWorker.receipt("bob@example.com", id,
                List.of(new LineItem(new Sku("SKU-<1>"), 2), new LineItem(new Sku("SKU-2"), 1)),
                new Money(12_345, "EUR"));
        ReceiptRequestedEvent intent = new ReceiptRequestedEvent(id, TENANT, "bob@example.com",
                new Money(12_345, "EUR"), lease(id, Step.SEND_RECEIPT, 1));

        inTransaction(() -> worker.on(intent));
        inTransaction(() -> worker.on(intent)); // redelivery
        inTransaction(() -> worker.on(new ReceiptRequestedEvent(id, TENANT, "bob@example.com",
                new Money(12_345, "EUR"), lease(id, Step.SEND_RECEIPT, 2)))); // a new lease owner

        List<MimeMessage> received = receivedFor(id);
        assertThat(received).hasSize(1);
        MimeMessage receipt = received.get(0);
        assertThat(receipt.getMessageID()).isEqualTo("<chk-smtp1.send-receipt@shop.example>");
        assertThat(receipt.getAllRecipients()[0].toString()).isEqualTo("bob@example.com");
        assertThat(receipt.getFrom()[0].toString()).isEqualTo("receipts@shop.example");
        assertThat(events.published()).hasSize(3).allMatch(e -> e instanceof ReceiptDeliverySucceededEvent);
        // plain text and HTML; the worker's own builder gives the lines (escaped in HTML) and the amount
        assertThat(GreenMailUtil.getBody(receipt)).contains("123.45 EUR");
        assertThat(message.body()).contains("SKU-<1>").contains("2 x SKU-<1>").contains("123.45 EUR");
        assertThat(message.html()).contains("SKU-&lt;1&gt;").contains("<strong>123.45 EUR</strong>");
        OutboundMessage sent = new OutboundMessage("x@example.com", "s", message.body(), message.html());
        mail.send(new OperationId("chk-smtp1b/send-receipt"), "chk-smtp1b/send-receipt", sent);
        MimeMessage withLines = Arrays.stream(greenMail.getReceivedMessages())
                .filter(m -> { try { return "<chk-smtp1b.send-receipt@shop.example>".equals(m.getMessageID()); }
                    catch (Exception e) { throw new IllegalStateException(e); } }).findFirst().orElseThrow();
        MimeMultipart alternative = findAlternative(withLines.getContent());
        assertThat(alternative.getContentType()).startsWith("multipart/alternative");
        assertThat(alternative.getCount()).isEqualTo(2);
        assertThat(alternative.getBodyPart(0).getContentType()).startsWith("text/plain");
        assertThat((String) alternative.getBodyPart(0).getContent()).contains("SKU-<1>").contains("123.45 EUR");
        assertThat(alternative.getBodyPart(1).getContentType()).startsWith("text/html");
        assertThat((String) alternative.getBodyPart(1).getContent()).contains("SKU-&lt;1&gt;");
    }

    private static MimeMultipart findAlternative(Object content) throws Exception {
        MimeMultipart multipart = (MimeMultipart) content;
        if (multipart.getContentType().startsWith("multipart/alternative")) return multipart;
        return findAlternative(multipart.getBodyPart(0).getContent());
    }

    @Test
    void aCrashBetweenTheServersAcceptanceAndTheCommitResendsOnceWithTheSameMessageId() {
        mail.to(greenMailPort());
        CheckoutId id = new CheckoutId("chk-smtp2");
        // the server accepted, then the process died before the commit: the claim and the SENT status roll back
        assertThatThrownBy(() -> inTransaction(() -> {
            send(id, 1);
            throw new IllegalStateException("crash before commit");
        })).hasMessageContaining("crash");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM receipt_operations WHERE operation_id = ?", Integer.class,
                OperationId.of(id, Step.SEND_RECEIPT).value())).isZero();
        send(id, 1); // redelivery after the restart
        send(id, 1);
        send(id, 2);

        List<MimeMessage> received = receivedFor(id);
        assertThat(received).hasSize(2).extracting(m -> {
            try {
                return m.getMessageID();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).containsOnly("<chk-smtp2.send-receipt@shop.example>");
    }

    @Test
    void aTemporaryRefusalOrADroppedConnectionIsRetryableAndTheRetrySendsOnce() throws Exception {
        CheckoutId id = new CheckoutId("chk-smtp3");
        try (ScriptedSmtpServer busy = new ScriptedSmtpServer("450 4.2.1 <ada@example.com> mailbox busy");
             ScriptedSmtpServer dropping = new ScriptedSmtpServer(ScriptedSmtpServer.DROP)) {
            mail.to(smtp(busy.port()));
            DeliveryOutcome first = send(id, 1);
            mail.to(smtp(dropping.port()));
            DeliveryOutcome second = send(id, 2);

            assertThat(first.status()).isEqualTo(DeliveryOutcome.Status.FAILED);
            assertThat(first.finalFailure()).isFalse();
            assertThat(first.detail()).contains("450").contains("retryable").doesNotContain("ada@example.com");
            assertThat(second.status()).isEqualTo(DeliveryOutcome.Status.FAILED);
            assertThat(second.finalFailure()).isFalse();
            assertThat(busy.accepted() + dropping.accepted()).isZero();
        }
        assertThat(jdbc.queryForObject("SELECT status FROM receipt_operations WHERE operation_id = ?", String.class,
                OperationId.of(id, Step.SEND_RECEIPT).value())).isEqualTo("STARTED");
        mail.to(greenMailPort());
        assertThat(send(id, 3).status()).isEqualTo(DeliveryOutcome.Status.SENT);
        assertThat(receivedFor(id)).hasSize(1);
    }

    @Test
    void aRecipientRefusedForGoodIsFinalRecordedAndNeverSentAgain() throws Exception {
        CheckoutId id = new CheckoutId("chk-smtp4");
        RecordingEventGateway events = new RecordingEventGateway();
        ReceiptsWorker worker = new ReceiptsWorker(receipts, events, new ActivityMetrics(new SimpleMeterRegistry()));
        try (ScriptedSmtpServer refusing = new ScriptedSmtpServer("550 5.1.1 <bob@example.com> no such user")) {
            mail.to(smtp(refusing.port()));
            for (long token = 1; token <= 3; token++) {
                long t = token;
                inTransaction(() -> worker.on(new ReceiptRequestedEvent(id, TENANT, "bob@example.com",
                        new Money(500, "EUR"), lease(id, Step.SEND_RECEIPT, t))));
            }
            assertThat(refusing.recipientsAsked()).as("asked once; later attempts answered from the record")
                    .isEqualTo(1);
            assertThat(refusing.accepted()).isZero();
        }
        assertThat(events.published()).hasSize(3).allSatisfy(e -> {
            assertThat(e).isInstanceOf(ActivityAttemptFailedEvent.class);
            assertThat(((ActivityAttemptFailedEvent) e).detail()).startsWith("final: ").contains("550 5.1.1")
                    .doesNotContain("bob@example.com");
        });
        assertThat(jdbc.queryForMap("SELECT status, failure_detail FROM receipt_operations WHERE operation_id = ?",
                OperationId.of(id, Step.SEND_RECEIPT).value()))
                .containsEntry("status", ReceiptsResource.UNDELIVERABLE);
        assertThat(receivedFor(id)).isEmpty();
    }

    /** A {@link MailPort} whose target a test chooses. */
    static final class SwitchablePort implements MailPort {
        private volatile MailPort target;

        void to(MailPort port) {
            this.target = port;
        }

        @Override
        public void send(OperationId operationId, String idempotencyKey, OutboundMessage message) {
            target.send(operationId, idempotencyKey, message);
        }
    }
}
