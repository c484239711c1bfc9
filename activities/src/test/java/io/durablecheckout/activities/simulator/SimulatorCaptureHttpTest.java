package io.durablecheckout.activities.simulator;

import io.durablecheckout.activities.PostgresTestSupport;
import io.durablecheckout.activities.payments.CaptureOutcome;
import io.durablecheckout.activities.payments.PaymentProvider;
import io.durablecheckout.activities.payments.PaymentProvider.AuthorizationStatus;
import io.durablecheckout.activities.payments.PaymentProvider.CaptureAnswer;
import io.durablecheckout.activities.payments.PaymentProvider.CaptureStatus;
import io.durablecheckout.activities.payments.PaymentsResource;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.util.concurrent.atomic.AtomicInteger;

import static io.durablecheckout.activities.TestIntents.token;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulator's captures over real HTTP through the real {@code HttpPaymentProvider}, counted in its ledger where
 * the effect happens ({@code simulator_authorizations.captures}, {@code simulator_calls}): one capture per capture
 * key and at most one per authorization, never after a void, and its capture tokens.
 */
class SimulatorCaptureHttpTest extends PostgresTestSupport {

    private static final Money AMOUNT = new Money(1_999, "EUR");
    private static final AtomicInteger SEQ = new AtomicInteger();

    private static ConfigurableApplicationContext app;
    private static PaymentProvider provider;

    @BeforeAll
    static void startSimulator() {
        app = new SpringApplicationBuilder(SimulatorTestApplication.class)
                .properties(
                        "server.port=0",
                        "spring.main.banner-mode=off",
                        "spring.datasource.url=" + postgres.getJdbcUrl("postgres", "postgres"),
                        "checkout.payments.request-timeout=1500ms",
                        "checkout.payments.connect-timeout=1s",
                        "checkout.simulator.timeout-delay=3s")
                .run();
        provider = app.getBean(PaymentProvider.class);
    }

    @AfterAll
    static void stopSimulator() {
        if (app != null) app.close();
    }

    private static CheckoutId checkout() {
        return new CheckoutId("chk-cap" + SEQ.incrementAndGet());
    }

    private static OperationId authorized(CheckoutId id, String paymentToken) {
        OperationId op = OperationId.of(id, Step.AUTHORIZE_PAYMENT);
        // asked again under the same operation id if a loaded machine lets the call time out (unknown, not refused)
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(
                () -> provider.authorize(op, AMOUNT, paymentToken).status() == AuthorizationStatus.AUTHORIZED);
        return op;
    }

    private static int ledger(String column, OperationId authorization) {
        return jdbc.queryForObject("SELECT " + column + " FROM simulator_authorizations WHERE operation_id = ?",
                Integer.class, authorization.value());
    }

    @Test
    void aCaptureIsMadeOncePerKeyAndAtMostOncePerAuthorizationAndAVoidAfterItIsRefused() {
        CheckoutId id = checkout();
        OperationId auth = authorized(id, "tok_approve");
        OperationId key = OperationId.of(id, Step.CAPTURE_PAYMENT);

        CaptureAnswer first = provider.capture(auth, key, AMOUNT);
        CaptureAnswer repeated = provider.capture(auth, key, AMOUNT);
        CaptureAnswer anotherKey = provider.capture(auth, new OperationId(key.value() + "-again"), AMOUNT);

        assertThat(first.status()).as(first.detail()).isEqualTo(CaptureStatus.CAPTURED);
        assertThat(first.reference()).isEqualTo(SimulatorLedger.reference("SIM-CAPTURE-", key.value()));
        assertThat(first.captured()).isEqualTo(AMOUNT);
        assertThat(repeated).isEqualTo(first);
        assertThat(anotherKey.status()).isEqualTo(CaptureStatus.DECLINED);
        assertThat(anotherKey.detail()).contains("already captured");
        assertThat(ledger("captures", auth)).isEqualTo(1);
        assertThat(jdbc.queryForList("SELECT idempotency_key FROM simulator_calls WHERE operation_id = ?"
                + " AND action = 'CAPTURE' ORDER BY id", String.class, auth.value()))
                .containsExactly(key.value(), key.value(), key.value() + "-again");

        PaymentProvider.CompensationAnswer voided = provider.voidAuthorization(auth,
                OperationId.of(id, Step.VOID_PAYMENT), AMOUNT);
        assertThat(voided.done()).isFalse();
        assertThat(voided.detail()).contains("409").contains("already captured");
    }

    @Test
    void neverACaptureAfterAVoidNorAboveTheAuthorizedAmount() {
        CheckoutId voidedFirst = checkout();
        OperationId auth = authorized(voidedFirst, "tok_approve");
        assertThat(provider.voidAuthorization(auth, OperationId.of(voidedFirst, Step.VOID_PAYMENT), AMOUNT).done())
                .isTrue();
        CaptureAnswer afterVoid = provider.capture(auth, OperationId.of(voidedFirst, Step.CAPTURE_PAYMENT), AMOUNT);
        assertThat(afterVoid.status()).isEqualTo(CaptureStatus.DECLINED);
        assertThat(afterVoid.detail()).contains("voided");
        assertThat(ledger("captures", auth)).isZero();

        CheckoutId partial = checkout();
        OperationId held = authorized(partial, "tok_approve");
        CaptureAnswer tooMuch = provider.capture(held, new OperationId(partial + "/capture-too-much"),
                new Money(2_000, "EUR"));
        CaptureAnswer part = provider.capture(held, OperationId.of(partial, Step.CAPTURE_PAYMENT),
                new Money(1_000, "EUR"));
        assertThat(tooMuch.status()).isEqualTo(CaptureStatus.DECLINED);
        assertThat(part.status()).isEqualTo(CaptureStatus.CAPTURED);
        assertThat(part.captured()).isEqualTo(new Money(1_000, "EUR"));
        assertThat(ledger("captured_minor", held)).isEqualTo(1_000);

        // an authorization the provider never saw: nothing captured, nothing created
        OperationId never = OperationId.of(checkout(), Step.AUTHORIZE_PAYMENT);
        assertThat(provider.capture(never, new OperationId(never + "-capture"), AMOUNT).status())
                .isEqualTo(CaptureStatus.DECLINED);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM simulator_authorizations WHERE operation_id = ?",
                Integer.class, never.value())).isZero();
    }

    @Test
    void theCaptureTokens() {
        CheckoutId declinedId = checkout();
        OperationId declined = authorized(declinedId, "tok_capture_declined");
        OperationId declinedKey = OperationId.of(declinedId, Step.CAPTURE_PAYMENT);
        CaptureAnswer refused = provider.capture(declined, declinedKey, AMOUNT);
        assertThat(refused.status()).isEqualTo(CaptureStatus.DECLINED);
        assertThat(refused.detail()).isEqualTo("capture declined: insufficient funds");
        assertThat(provider.capture(declined, declinedKey, AMOUNT)).isEqualTo(refused);
        assertThat(ledger("captures", declined)).isZero();

        // timed out, but it happened: the retry under the same key is answered from the record, one capture
        CheckoutId doneId = checkout();
        OperationId done = authorized(doneId, "tok_capture_timeout_done");
        OperationId doneKey = OperationId.of(doneId, Step.CAPTURE_PAYMENT);
        assertThat(provider.capture(done, doneKey, AMOUNT).status()).isEqualTo(CaptureStatus.UNKNOWN);
        assertThat(ledger("captures", done)).isEqualTo(1);
        assertThat(provider.capture(done, doneKey, AMOUNT).status()).isEqualTo(CaptureStatus.CAPTURED);
        assertThat(ledger("captures", done)).isEqualTo(1);
        assertThat(ledger("capture_requests", done)).as("the repeat counted, answered from the record").isEqualTo(2);

        // timed out and lost: nothing happened; the retry under the same key captures, once
        CheckoutId lostId = checkout();
        OperationId lost = authorized(lostId, "tok_capture_timeout_lost");
        OperationId lostKey = OperationId.of(lostId, Step.CAPTURE_PAYMENT);
        assertThat(provider.capture(lost, lostKey, AMOUNT).status()).isEqualTo(CaptureStatus.UNKNOWN);
        assertThat(ledger("captures", lost)).isZero();
        assertThat(provider.capture(lost, lostKey, AMOUNT).status()).isEqualTo(CaptureStatus.CAPTURED);
        assertThat(ledger("captures", lost)).isEqualTo(1);
        assertThat(ledger("capture_requests", lost)).isEqualTo(2);
    }

    /**
     * The resource over the simulator: a capture timeout that did happen completes, asked again under the same
     * operation id, with one capture at the provider. Under a key per attempt (the mutant) the retry is a second
     * capture request, which the provider refuses: reported declined although the money was taken.
     */
    @Test
    void aCaptureTimeoutThatHappenedCompletesUnderTheSameOperationIdWithOneCapture() {
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        CheckoutId id = checkout();
        OperationId auth = authorized(id, "tok_capture_timeout_done");
        OperationId captureOp = OperationId.of(id, Step.CAPTURE_PAYMENT);
        TenantId tenant = new TenantId("t1");

        CaptureOutcome timedOut = inTransaction(() -> payments.capture(id, tenant, captureOp, token(1), auth, AMOUNT));
        CaptureOutcome retried = inTransaction(() -> payments.capture(id, tenant, captureOp, token(2), auth, AMOUNT));

        assertThat(timedOut.status()).isEqualTo(CaptureOutcome.Status.UNKNOWN);
        assertThat(retried.status()).as(retried.detail()).isEqualTo(CaptureOutcome.Status.CAPTURED);
        assertThat(retried.captured()).isEqualTo(AMOUNT);
        assertThat(ledger("captures", auth)).isEqualTo(1);
        assertThat(jdbc.queryForList("SELECT DISTINCT idempotency_key FROM simulator_calls WHERE operation_id = ?"
                + " AND action = 'CAPTURE'", String.class, auth.value())).containsExactly(captureOp.value());
    }
}
