package io.durablecheckout.activities.receipts;

import io.durablecheckout.activities.privacy.PersonalDataVault;
import io.durablecheckout.activities.ActivityMetrics;
import io.durablecheckout.activities.PostgresTestSupport;
import io.durablecheckout.activities.RecordingEventGateway;
import io.durablecheckout.api.activity.CancellationNoticeDeliverySucceededEvent;
import io.durablecheckout.api.activity.ReceiptDeliverySucceededEvent;
import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.checkout.CancellationNoticeRequestedEvent;
import io.durablecheckout.api.checkout.ReceiptRequestedEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.durablecheckout.activities.TestIntents.lease;
import static io.durablecheckout.activities.TestIntents.token;
import static org.assertj.core.api.Assertions.assertThat;

class ReceiptsResourceTest extends PostgresTestSupport {

    private static final TenantId TENANT = new TenantId("t1");
    private static final OutboundMessage MESSAGE = new OutboundMessage("ada@example.com", "subject", "body");

    private static ReceiptsResource receipts;

    @BeforeAll
    static void setUp() {
        receipts = new ReceiptsResource(dataSource, vault);
    }

    private static DeliveryOutcome send(CheckoutId id, long token) {
        return inTransaction(() -> receipts.send(ReceiptsResource.Kind.RECEIPT, id, TENANT,
                OperationId.of(id, Step.SEND_RECEIPT), token(token), MESSAGE));
    }

    @Test
    void sendsOncePerOperationIdWhateverTheDeliveries() {
        CheckoutId id = new CheckoutId("chk-r1");
        DeliveryOutcome first = send(id, 1);
        DeliveryOutcome duplicate = send(id, 1);
        DeliveryOutcome newOwner = send(id, 2);

        assertThat(first).isEqualTo(new DeliveryOutcome(DeliveryOutcome.Status.SENT, false, null, null, false));
        assertThat(duplicate.replayed()).isTrue();
        assertThat(newOwner.replayed()).isTrue();
        assertThat(receipts.messagesFor(OperationId.of(id, Step.SEND_RECEIPT))).isEqualTo(1);
        Map<String, Object> message = jdbc.queryForMap("SELECT recipient, subject FROM outbound_messages WHERE operation_id = ?",
                OperationId.of(id, Step.SEND_RECEIPT).value());
        assertThat(message).containsEntry("subject", "subject");
        // kept sealed under the checkout's key (a plain address, as here, is sealed when it is recorded)
        String kept = (String) message.get("recipient");
        assertThat(kept).startsWith(PersonalDataVault.PREFIX).doesNotContain("ada@example.com");
        assertThat(vault.open(id.value(), PersonalDataVault.EMAIL, kept)).contains("ada@example.com");
        assertThat(jdbc.queryForObject("SELECT recipient FROM receipt_operations WHERE operation_id = ?", String.class,
                OperationId.of(id, Step.SEND_RECEIPT).value())).startsWith(PersonalDataVault.PREFIX);
        // counted where the effect happens: the mail service got one request, under the operation id as its key
        assertThat(jdbc.queryForList("SELECT idempotency_key FROM mail_sink_messages WHERE operation_id = ?",
                String.class, OperationId.of(id, Step.SEND_RECEIPT).value()))
                .containsExactly(OperationId.of(id, Step.SEND_RECEIPT).value());
    }

    @Test
    void staleOwnerIsRejectedAndSendsNothing() {
        CheckoutId id = new CheckoutId("chk-r2");
        // A parked owner (token 1) resumes after the new owner (token 2) sent.
        send(id, 2);
        DeliveryOutcome stale = send(id, 1);

        assertThat(stale.status()).isEqualTo(DeliveryOutcome.Status.STALE);
        assertThat(stale.highestAccepted()).isEqualTo(new FencingToken(2));
        assertThat(receipts.messagesFor(OperationId.of(id, Step.SEND_RECEIPT))).isEqualTo(1);
    }

    @Test
    void concurrentOwnersSendExactlyOneMessage() throws Exception {
        CheckoutId id = new CheckoutId("chk-r3");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<DeliveryOutcome>> owners = new ArrayList<>();
            for (long token = 1; token <= 8; token++) {
                long t = token;
                owners.add(() -> send(id, t));
            }
            long fresh = 0;
            for (Future<DeliveryOutcome> f : pool.invokeAll(owners)) {
                DeliveryOutcome outcome = f.get();
                if (outcome.status() == DeliveryOutcome.Status.SENT && !outcome.replayed()) fresh++;
            }
            assertThat(fresh).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(receipts.messagesFor(OperationId.of(id, Step.SEND_RECEIPT))).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM mail_sink_messages WHERE operation_id = ?", Integer.class,
                OperationId.of(id, Step.SEND_RECEIPT).value())).isEqualTo(1);
    }

    @Test
    void workerSendsReceiptAndCancellationNoticeAsSeparateMessages() {
        CheckoutId id = new CheckoutId("chk-r4");
        RecordingEventGateway events = new RecordingEventGateway();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ReceiptsWorker worker = new ReceiptsWorker(receipts, events, new ActivityMetrics(meters));

        ReceiptRequestedEvent receipt = new ReceiptRequestedEvent(id, TENANT, "bob@example.com",
                new Money(12_345, "EUR"), lease(id, Step.SEND_RECEIPT, 2));
        inTransaction(() -> worker.on(receipt));
        inTransaction(() -> worker.on(receipt));
        inTransaction(() -> worker.on(new ReceiptRequestedEvent(id, TENANT, "bob@example.com",
                new Money(12_345, "EUR"), lease(id, Step.SEND_RECEIPT, 1))));
        inTransaction(() -> worker.on(new CancellationNoticeRequestedEvent(id, TENANT, "bob@example.com",
                lease(id, Step.SEND_CANCELLATION_NOTICE, 1))));

        OperationId receiptOp = OperationId.of(id, Step.SEND_RECEIPT);
        OperationId noticeOp = OperationId.of(id, Step.SEND_CANCELLATION_NOTICE);
        assertThat(events.published()).containsExactly(
                new ReceiptDeliverySucceededEvent(id, receiptOp, token(2)),
                new ReceiptDeliverySucceededEvent(id, receiptOp, token(2)),
                new StaleOwnerRejectedEvent(id, Step.SEND_RECEIPT, receiptOp, token(1), token(2), "receipt_operations"),
                new CancellationNoticeDeliverySucceededEvent(id, noticeOp, token(1)));
        assertThat(receipts.messagesFor(receiptOp)).isEqualTo(1);
        assertThat(receipts.messagesFor(noticeOp)).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT body FROM outbound_messages WHERE operation_id = ?", String.class,
                receiptOp.value())).contains("123.45 EUR");
        assertThat(meters.counter(ActivityMetrics.EXECUTIONS, "step", "send-receipt", "outcome", "sent").count()).isEqualTo(1);
        assertThat(meters.counter(ActivityMetrics.EXECUTIONS, "step", "send-receipt", "outcome", "duplicate").count()).isEqualTo(1);
        assertThat(meters.counter(ActivityMetrics.STALE_REJECTED, "resource", "receipt_operations").count()).isEqualTo(1);
    }
}
