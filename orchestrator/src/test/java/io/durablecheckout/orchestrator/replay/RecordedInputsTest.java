package io.durablecheckout.orchestrator.replay;

import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationSucceededEvent;
import io.durablecheckout.api.activity.PaymentLookupAnsweredEvent;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.activity.StockReservationRejectedEvent;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.RecordProviderNotificationCommand;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.checkout.Deadlines;
import io.durablecheckout.orchestrator.serialization.AxonJson;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.deadline.GenericDeadlineMessage;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.MetaData;
import org.axonframework.serialization.Serializer;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decision 83: a recorded input keeps the command (or the deadline's payload) itself in the metadata, not the map it
 * converts to. The stored bytes must be exactly those the map gave, for every kind of input, so histories written
 * before and after read the same; and what replay reads back is the same command.
 */
class RecordedInputsTest {

    private static final Serializer EVENT_SERIALIZER = AxonJson.strictEventSerializer();
    private static final CheckoutId ID = new CheckoutId("co_recorded-inputs");
    private static final Instant AT = Instant.parse("2026-12-05T10:15:30.123456789Z");

    static List<Object> inputs() {
        OperationId reserve = OperationId.of(ID, Step.RESERVE_STOCK);
        OperationId authorize = OperationId.of(ID, Step.AUTHORIZE_PAYMENT);
        return List.of(
                new StartCheckoutCommand(ID, new TenantId("demo"), List.of(new LineItem(new Sku("SKU-0001"), 2),
                        new LineItem(new Sku("SKU-0002"), 1)), new Money(2_599, "EUR"), "sealed:v1:tok",
                        "sealed:v1:mail", "idem-1", "hmac:v1:ab", AT),
                new RecordActivityResultCommand(ID, new PaymentAuthorizationSucceededEvent(ID, authorize,
                        new FencingToken(3), "psp_1"), AT),
                new RecordActivityResultCommand(ID, new StockReservationRejectedEvent(ID, reserve, new FencingToken(1),
                        CancellationReason.OUT_OF_STOCK, "SKU-0002: 0 left"), AT),
                new RecordActivityResultCommand(ID, new PaymentLookupAnsweredEvent(ID,
                        OperationId.of(ID, Step.RECONCILE_PAYMENT), new FencingToken(2), authorize,
                        PaymentLookupOutcome.NOT_FOUND, null, "nothing under that key"), AT),
                new RecordActivityResultCommand(ID, new ActivityAttemptFailedEvent(ID, Step.AUTHORIZE_PAYMENT,
                        authorize, new FencingToken(4), "503 \"unavailable\" \u00e9"), AT),
                new RenewLeaseCommand(ID, new ActivityHeartbeatEvent(ID, Step.RESERVE_STOCK, reserve,
                        new FencingToken(1)), AT),
                new RequestCancellationCommand(ID, CancellationReason.CUSTOMER_REQUEST, "changed my mind", 7L, AT),
                new RequestCancellationCommand(ID, CancellationReason.CUSTOMER_REQUEST, null, null, AT),
                new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, "psp_2", "seen in the dashboard",
                        null, AT),
                new RetryActivityCommand(ID, 12L, AT),
                new RecordProviderNotificationCommand(ID, authorize, PaymentLookupOutcome.AUTHORIZED, "psp_3",
                        "ntf-1", AT),
                new Deadlines.LeaseExpiry(Step.SEND_RECEIPT, new FencingToken(9)),
                new Deadlines.RetryDue(Step.REFUND_PAYMENT, new FencingToken(2)),
                new Deadlines.ReconciliationDue(3));
    }

    @Test
    void anInputIsStoredExactlyAsItsMapWasAndReadsBackAsTheSameInput() {
        for (Object value : inputs()) {
            Map<String, Object> asObject = new LinkedHashMap<>(Map.of("id", "m-1", "payload", value));
            Map<String, Object> asMap = new LinkedHashMap<>(Map.of("id", "m-1", "payload", RecordedInputs.toMap(value)));
            byte[] stored = bytes(MetaData.with(RecordedInputs.INPUT, asObject));
            assertThat(new String(stored)).as(value.getClass().getSimpleName())
                    .isEqualTo(new String(bytes(MetaData.with(RecordedInputs.INPUT, asMap))));
            @SuppressWarnings("unchecked")
            Map<String, Object> read = (Map<String, Object>) EVENT_SERIALIZER.deserialize(
                    new org.axonframework.serialization.SimpleSerializedObject<>(stored, byte[].class,
                            EVENT_SERIALIZER.typeForClass(MetaData.class)));
            @SuppressWarnings("unchecked")
            Map<String, Object> input = (Map<String, Object>) read.get(RecordedInputs.INPUT);
            assertThat(RecordedInputs.converted(input).as(value.getClass())).isEqualTo(value);
        }
    }

    @Test
    void theLiveRecordingKeepsTheInputItselfAndTheDeadlinesOperationsAsReplayComparesThem() {
        Message<?> command = GenericCommandMessage.asCommandMessage(new RetryActivityCommand(ID, null, AT));
        assertThat(RecordedInputs.describe(command).get("payload")).isSameAs(command.getPayload());
        Deadlines.LeaseExpiry expiry = new Deadlines.LeaseExpiry(Step.RESERVE_STOCK, new FencingToken(1));
        Message<?> deadline = GenericDeadlineMessage.asDeadlineMessage(Deadlines.LEASE_EXPIRED, expiry, AT);
        assertThat(RecordedInputs.describe(deadline).get("payload")).isSameAs(expiry);
        // replay's own operations carry the map the stored metadata is read into
        assertThat(RecordedInputs.scheduleOp("d-1", AT, Deadlines.LEASE_EXPIRED, expiry).get("payload"))
                .isEqualTo(Map.of("step", "RESERVE_STOCK", "fencingToken", Map.of("value", 1L)));
    }

    private static byte[] bytes(MetaData metaData) {
        return EVENT_SERIALIZER.serialize(metaData, byte[].class).getData();
    }
}
