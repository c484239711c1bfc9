package io.durablecheckout.activities.payments;

import io.durablecheckout.activities.ActivityMetrics;
import io.durablecheckout.activities.PostgresTestSupport;
import io.durablecheckout.activities.RecordingEventGateway;
import io.durablecheckout.activities.ResourceMutants;
import io.durablecheckout.activities.payments.PaymentProvider.CaptureStatus;
import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.PaymentCaptureDeclinedEvent;
import io.durablecheckout.api.activity.PaymentCaptureOutcomeUnknownEvent;
import io.durablecheckout.api.activity.PaymentCaptureSucceededEvent;
import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.checkout.PaymentCaptureRequestedEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static io.durablecheckout.activities.TestIntents.lease;
import static io.durablecheckout.activities.TestIntents.token;
import static io.durablecheckout.activities.payments.ScriptedPaymentProvider.captureAnswer;
import static io.durablecheckout.activities.payments.ScriptedPaymentProvider.captured;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The capture at the payments resource: fenced by lease token, asked again under its own operation id until the
 * provider decides, and answered from the record once it has (never a second call, never another key).
 */
class PaymentsResourceCaptureTest extends PostgresTestSupport {

    private static final TenantId TENANT = new TenantId("t1");
    private static final Money AMOUNT = new Money(4_200, "EUR");

    private static OperationId authOp(CheckoutId id) {
        return OperationId.of(id, Step.AUTHORIZE_PAYMENT);
    }

    private static OperationId captureOp(CheckoutId id) {
        return OperationId.of(id, Step.CAPTURE_PAYMENT);
    }

    private static CaptureOutcome capture(PaymentsResource payments, CheckoutId id, long token) {
        return inTransaction(() -> payments.capture(id, TENANT, captureOp(id), token(token), authOp(id), AMOUNT));
    }

    private static int column(String column, OperationId op) {
        return jdbc.queryForObject("SELECT " + column + " FROM payment_operations WHERE operation_id = ?",
                Integer.class, op.value());
    }

    @Test
    void anUnknownCaptureIsAskedAgainUnderTheSameKeyThenAnsweredFromTheRecordAndAStaleOwnerIsRefused() {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider()
                .then(captureAnswer(CaptureStatus.UNKNOWN, "no answer within PT2S"))
                .then(captured("CAP-1", AMOUNT));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        CheckoutId id = new CheckoutId("chk-c1");

        CaptureOutcome timeout = capture(payments, id, 1);
        assertThat(timeout.status()).isEqualTo(CaptureOutcome.Status.UNKNOWN);
        assertThat(payments.statusOf(captureOp(id))).isEqualTo("UNKNOWN");
        CaptureOutcome again = capture(payments, id, 2);
        CaptureOutcome stale = capture(payments, id, 1);
        CaptureOutcome redelivered = capture(payments, id, 2);
        CaptureOutcome newOwner = capture(payments, id, 3);

        assertThat(again.status()).isEqualTo(CaptureOutcome.Status.CAPTURED);
        assertThat(again.providerReference()).isEqualTo("CAP-1");
        assertThat(again.captured()).isEqualTo(AMOUNT);
        assertThat(stale.status()).isEqualTo(CaptureOutcome.Status.STALE);
        assertThat(stale.highestAccepted()).isEqualTo(new FencingToken(2));
        assertThat(redelivered.replayed()).isTrue();
        assertThat(redelivered.providerReference()).isEqualTo("CAP-1");
        assertThat(redelivered.captured()).isEqualTo(AMOUNT);
        assertThat(newOwner.replayed()).isTrue();
        assertThat(newOwner.status()).isEqualTo(CaptureOutcome.Status.CAPTURED);
        // asked twice, both times under the capture's own operation id: the provider's idempotency key
        assertThat(provider.calls).containsExactly("capture " + authOp(id) + " key " + captureOp(id),
                "capture " + authOp(id) + " key " + captureOp(id));
        assertThat(payments.statusOf(captureOp(id))).isEqualTo("CAPTURED");
        assertThat(column("attempts", captureOp(id))).isEqualTo(2);
        assertThat(column("captured_minor", captureOp(id))).isEqualTo(4_200);
        assertThat(jdbc.queryForObject("SELECT outcome_recorded_at IS NOT NULL FROM payment_operations"
                + " WHERE operation_id = ?", Boolean.class, captureOp(id).value())).isTrue();
    }

    @Test
    void aCaptureUnderAKeyPerAttemptIsTheBugThisCatches() {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider()
                .then(captureAnswer(CaptureStatus.UNKNOWN, "no answer within PT2S"))
                .then(captured("CAP-2", AMOUNT));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, new ResourceMutants() {
            @Override
            public boolean captureKeyPerAttempt() {
                return true;
            }
        }, vault);
        CheckoutId id = new CheckoutId("chk-c-mutant");
        capture(payments, id, 1);
        capture(payments, id, 2);
        assertThat(provider.calls).as("the mutant's keys differ per attempt").doesNotHaveDuplicates()
                .noneMatch(call -> call.endsWith("key " + captureOp(id)));
    }

    @Test
    void anUnavailableProviderIsARetryableFailureAndADeclineIsFinal() {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider()
                .then(captureAnswer(CaptureStatus.UNAVAILABLE, "provider unavailable (HTTP 503)"))
                .then(captureAnswer(CaptureStatus.DECLINED, "capture rejected: authorization voided"));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        CheckoutId id = new CheckoutId("chk-c2");

        CaptureOutcome failed = capture(payments, id, 1);
        CaptureOutcome declined = capture(payments, id, 1);
        CaptureOutcome replay = capture(payments, id, 2);

        assertThat(failed.status()).isEqualTo(CaptureOutcome.Status.FAILED);
        assertThat(declined.status()).isEqualTo(CaptureOutcome.Status.DECLINED);
        assertThat(replay.status()).isEqualTo(CaptureOutcome.Status.DECLINED);
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.detail()).isEqualTo("capture rejected: authorization voided");
        assertThat(provider.calls).hasSize(2);
    }

    @Test
    void theWorkerReportsEachCaptureOutcome() {
        Money partial = new Money(4_000, "EUR");
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider()
                .then(captureAnswer(CaptureStatus.UNKNOWN, "no answer within PT2S"))
                .then(captureAnswer(CaptureStatus.UNAVAILABLE, "connection refused"))
                .then(captured("CAP-9", partial))
                .then(captureAnswer(CaptureStatus.DECLINED, "capture declined"));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        RecordingEventGateway events = new RecordingEventGateway();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        PaymentsWorker worker = new PaymentsWorker(payments, events, new ActivityMetrics(meters));
        CheckoutId id = new CheckoutId("chk-c3");
        CheckoutId other = new CheckoutId("chk-c3b");

        for (long token : new long[]{1, 2, 3, 3, 1}) {
            inTransaction(() -> worker.on(new PaymentCaptureRequestedEvent(id, TENANT, authOp(id), partial,
                    lease(id, Step.CAPTURE_PAYMENT, token))));
        }
        inTransaction(() -> worker.on(new PaymentCaptureRequestedEvent(other, TENANT, authOp(other), AMOUNT,
                lease(other, Step.CAPTURE_PAYMENT, 1))));

        assertThat(events.published()).containsExactly(
                new PaymentCaptureOutcomeUnknownEvent(id, captureOp(id), token(1), "no answer within PT2S"),
                new ActivityAttemptFailedEvent(id, Step.CAPTURE_PAYMENT, captureOp(id), token(2), "connection refused"),
                new PaymentCaptureSucceededEvent(id, captureOp(id), token(3), "CAP-9", partial),
                new PaymentCaptureSucceededEvent(id, captureOp(id), token(3), "CAP-9", partial),
                new StaleOwnerRejectedEvent(id, Step.CAPTURE_PAYMENT, captureOp(id), token(1), token(3),
                        "payment_operations"),
                new PaymentCaptureDeclinedEvent(other, captureOp(other), token(1), "capture declined"));
        assertThat(provider.calls).hasSize(4);
        assertThat(meters.counter(ActivityMetrics.EXECUTIONS, "step", "capture-payment", "outcome", "unknown").count())
                .isEqualTo(1);
        assertThat(meters.counter(ActivityMetrics.EXECUTIONS, "step", "capture-payment", "outcome", "duplicate").count())
                .isEqualTo(1);
        assertThat(meters.counter(ActivityMetrics.EXECUTIONS, "step", "capture-payment", "outcome", "captured").count())
                .isEqualTo(1);
    }
}
