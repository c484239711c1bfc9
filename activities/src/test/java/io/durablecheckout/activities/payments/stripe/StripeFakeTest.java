package io.durablecheckout.activities.payments.stripe;

import com.stripe.StripeClient;
import io.durablecheckout.activities.PostgresTestSupport;
import io.durablecheckout.activities.payments.PaymentProvider.AuthorizationStatus;
import io.durablecheckout.activities.payments.PaymentProvider.CaptureStatus;
import io.durablecheckout.activities.payments.stripe.fake.StripeFake;
import io.durablecheckout.activities.payments.stripe.fake.StripeFake.Effect;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stateful Stripe fake the fault matrix's edge runs pay through, driven by the real adapter and SDK: it keeps
 * Stripe's idempotency (a key replays its first answer), counts what a real account would show, and every answer it
 * serves validates against Stripe's published description.
 */
class StripeFakeTest extends PostgresTestSupport {

    private static final Money AMOUNT = new Money(1500, "EUR");

    private StripeFake fake;
    private StripePaymentProvider stripe;

    @BeforeEach
    void start() {
        fake = new StripeFake(4_000);
        StripeClient client = StripeClient.builder().setApiKey("sk_test_fake").setApiBase("http://127.0.0.1:" + fake.port())
                .setMaxNetworkRetries(0).setReadTimeout(2_500).setConnectTimeout(2_000).build();
        stripe = new StripePaymentProvider(client, jdbc, transactionManager);
    }

    @AfterEach
    void stop() {
        try {
            assertThat(fake.violations()).as("answers Stripe's description does not allow").isEmpty();
        } finally {
            fake.close();
        }
    }

    private static OperationId op() {
        return new OperationId("co_" + UUID.randomUUID() + "/authorize-payment");
    }

    @Test
    void anAuthorizationRepeatedCreatesOneIntentAndChargesOnce() {
        OperationId op = op();
        var first = stripe.authorize(op, AMOUNT, "pm_card_visa", "demo");
        assertThat(first.status()).as(first.detail()).isEqualTo(AuthorizationStatus.AUTHORIZED);
        assertThat(stripe.authorize(op, AMOUNT, "pm_card_visa", "demo").status()).isEqualTo(AuthorizationStatus.AUTHORIZED);
        // the record of the intent lost (a crash before it committed): the create is an idempotent replay at Stripe
        jdbc.update("DELETE FROM stripe_payment_intents WHERE operation_id = ?", op.value());
        assertThat(stripe.authorize(op, AMOUNT, "pm_card_visa", "demo").status()).isEqualTo(AuthorizationStatus.AUTHORIZED);
        assertThat(fake.effects(Effect.INTENT_CREATED)).isEqualTo(Map.of(op.value(), 1));
        assertThat(fake.effects(Effect.CHARGE)).isEqualTo(Map.of(op.value(), 1));
        assertThat(fake.server().getAllServeEvents()).anyMatch(e -> e.getResponse().getHeaders()
                .getHeader("Idempotent-Replayed").isPresent());
    }

    @Test
    void aKeyPerCallIsTheBugTheCountsCatch() {
        OperationId op = op();
        stripe.authorize(op, AMOUNT, "pm_card_visa", "demo");
        new StripePaymentProvider(StripeClient.builder().setApiKey("sk_test_fake")
                .setApiBase("http://127.0.0.1:" + fake.port()).setMaxNetworkRetries(0).build(), jdbc, transactionManager,
                new io.durablecheckout.activities.ResourceMutants() {
                    @Override
                    public boolean stripeKeyPerCall() {
                        return true;
                    }
                }).authorize(op, AMOUNT, "pm_card_visa", "demo");
        assertThat(fake.effects(Effect.INTENT_CREATED).get(op.value())).isEqualTo(2);
        assertThat(fake.effects(Effect.CHARGE).get(op.value())).isEqualTo(2);
    }

    @Test
    void aDeclineIsDeclinedAndAThreeDSecureCardWaits() {
        OperationId declined = op();
        assertThat(stripe.authorize(declined, AMOUNT, "pm_card_visa_chargeDeclined", "demo").status())
                .isEqualTo(AuthorizationStatus.DECLINED);
        assertThat(stripe.lookup(declined).outcome()).isEqualTo(PaymentLookupOutcome.DECLINED);
        OperationId threeDs = op();
        var answer = stripe.authorize(threeDs, AMOUNT, "pm_card_authenticationRequired", "demo");
        assertThat(answer.status()).isEqualTo(AuthorizationStatus.ACTION_REQUIRED);
        assertThat(answer.nextAction()).isEqualTo("{\"type\":\"use_stripe_sdk\",\"use_stripe_sdk\":{}}");
        assertThat(answer.reference()).startsWith("pi_fake");
        assertThat(stripe.lookup(threeDs).outcome()).isEqualTo(PaymentLookupOutcome.PENDING);
    }

    /** The customer authenticates: Stripe's lookup says authorized; the same authorization asked again creates nothing. */
    @Test
    void aThreeDSecureCardIsAuthorizedOnceTheCustomerAuthenticatesAndAVoidBeforeThatCancelsIt() {
        OperationId done = op();
        assertThat(stripe.authorize(done, AMOUNT, "pm_card_authenticationRequired", "demo").status())
                .isEqualTo(AuthorizationStatus.ACTION_REQUIRED);
        assertThat(fake.authenticate(done.value())).isTrue();
        assertThat(stripe.lookup(done).outcome()).isEqualTo(PaymentLookupOutcome.AUTHORIZED);
        assertThat(stripe.authorize(done, AMOUNT, "pm_card_authenticationRequired", "demo").status())
                .isEqualTo(AuthorizationStatus.AUTHORIZED);
        assertThat(fake.effects(Effect.INTENT_CREATED)).containsEntry(done.value(), 1);
        assertThat(fake.effects(Effect.CHARGE)).containsEntry(done.value(), 1);

        OperationId abandoned = op();
        stripe.authorize(abandoned, AMOUNT, "pm_card_authenticationRequired", "demo");
        OperationId voidOp = new OperationId(abandoned.value().replace("/authorize-payment", "/void-payment"));
        assertThat(stripe.voidAuthorization(abandoned, voidOp, AMOUNT).done()).isTrue();
        assertThat(stripe.lookup(abandoned).outcome()).isEqualTo(PaymentLookupOutcome.DECLINED);
        assertThat(fake.authenticate(abandoned.value())).as("too late: cancelled").isFalse();
    }

    @Test
    void aTimeoutAfterTheChargeIsUnknownAndTheLookupFindsItAuthorized() {
        OperationId op = op();
        assertThat(stripe.authorize(op, AMOUNT, StripeFake.SLOW_AFTER_CHARGE, "demo").status())
                .isEqualTo(AuthorizationStatus.UNKNOWN);
        assertThat(fake.effects(Effect.CHARGE)).isEqualTo(Map.of(op.value(), 1));
        assertThat(stripe.lookup(op).outcome()).isEqualTo(PaymentLookupOutcome.AUTHORIZED);
        // the void under its own key cancels the intent once, however often it is asked
        OperationId voidOp = new OperationId(op.value().replace("/authorize-payment", "/void-payment"));
        assertThat(stripe.voidAuthorization(op, voidOp, AMOUNT).done()).isTrue();
        assertThat(stripe.voidAuthorization(op, voidOp, AMOUNT).done()).isTrue();
        assertThat(fake.effects(Effect.CANCEL)).hasSize(1).containsValue(1);
    }

    @Test
    void aRateLimitedCreateIsUnavailableAndTheRetryUnderTheSameKeyGoesThrough() {
        OperationId op = op();
        assertThat(stripe.authorize(op, AMOUNT, StripeFake.RATE_LIMITED_ONCE, "demo").status())
                .isEqualTo(AuthorizationStatus.UNAVAILABLE);
        assertThat(stripe.authorize(op, AMOUNT, StripeFake.RATE_LIMITED_ONCE, "demo").status())
                .isEqualTo(AuthorizationStatus.AUTHORIZED);
        assertThat(fake.effects(Effect.INTENT_CREATED)).isEqualTo(Map.of(op.value(), 1));
    }

    private static OperationId captureOf(OperationId authorization) {
        return new OperationId(authorization.value().replace("/authorize-payment", "/capture-payment"));
    }

    @Test
    void aCaptureIsMadeOnceAndAskedAgainIsAnsweredFromTheIntentsState() {
        OperationId op = op();
        assertThat(stripe.authorize(op, AMOUNT, "pm_card_visa", "demo").status()).isEqualTo(AuthorizationStatus.AUTHORIZED);
        Money part = new Money(1_200, "EUR");

        var captured = stripe.capture(op, captureOf(op), part);
        var again = stripe.capture(op, captureOf(op), part);

        assertThat(captured.status()).as(captured.detail()).isEqualTo(CaptureStatus.CAPTURED);
        assertThat(captured.captured()).isEqualTo(part);
        assertThat(again.status()).isEqualTo(CaptureStatus.CAPTURED);
        assertThat(again.captured()).as("amount_received").isEqualTo(part);
        assertThat(fake.effects(Effect.CAPTURE)).isEqualTo(Map.of(op.value(), 1));
        assertThat(fake.actingCalls()).filteredOn(c -> c.path().endsWith("/capture")).singleElement()
                .satisfies(c -> assertThat(c.idempotencyKey()).isEqualTo(captureOf(op).value()));
        // captured: the void is refused (a refund is what undoes it now)
        OperationId voidOp = new OperationId(op.value().replace("/authorize-payment", "/void-payment"));
        assertThat(stripe.voidAuthorization(op, voidOp, AMOUNT).done()).isFalse();
        assertThat(fake.effects(Effect.CANCEL)).isEmpty();
    }

    @Test
    void aCaptureTimeoutIsUnknownAndTheRetryUnderTheSameKeyFindsItCapturedOnce() {
        OperationId op = op();
        stripe.authorize(op, AMOUNT, StripeFake.SLOW_CAPTURE, "demo");

        var timedOut = stripe.capture(op, captureOf(op), AMOUNT);
        var retried = stripe.capture(op, captureOf(op), AMOUNT);

        assertThat(timedOut.status()).as(timedOut.detail()).isEqualTo(CaptureStatus.UNKNOWN);
        assertThat(retried.status()).as(retried.detail()).isEqualTo(CaptureStatus.CAPTURED);
        assertThat(retried.captured()).isEqualTo(AMOUNT);
        assertThat(fake.effects(Effect.CAPTURE)).isEqualTo(Map.of(op.value(), 1));
    }

    @Test
    void neverACaptureAfterAVoidNorAboveTheHold() {
        OperationId voided = op();
        stripe.authorize(voided, AMOUNT, "pm_card_visa", "demo");
        stripe.voidAuthorization(voided, new OperationId(voided.value().replace("/authorize-payment", "/void-payment")),
                AMOUNT);
        var afterVoid = stripe.capture(voided, captureOf(voided), AMOUNT);
        assertThat(afterVoid.status()).isEqualTo(CaptureStatus.DECLINED);
        assertThat(afterVoid.detail()).contains("canceled");

        OperationId held = op();
        stripe.authorize(held, AMOUNT, "pm_card_visa", "demo");
        var tooMuch = stripe.capture(held, captureOf(held), new Money(AMOUNT.minor() + 1, "EUR"));
        assertThat(tooMuch.status()).isEqualTo(CaptureStatus.DECLINED);

        OperationId declined = op();
        stripe.authorize(declined, AMOUNT, "pm_card_visa_chargeDeclined", "demo");
        assertThat(stripe.capture(declined, captureOf(declined), AMOUNT).status()).isEqualTo(CaptureStatus.DECLINED);
        assertThat(fake.effects(Effect.CAPTURE)).isEmpty();
    }

    @Test
    void aPaymentMethodStripeDoesNotKnowIsADeclineNotARetry() {
        OperationId op = op();
        var answer = stripe.authorize(op, AMOUNT, StripeFake.NO_SUCH_PAYMENT_METHOD, "demo");
        assertThat(answer.status()).isEqualTo(AuthorizationStatus.DECLINED);
        assertThat(answer.detail()).isEqualTo("declined: resource_missing");
    }
}
