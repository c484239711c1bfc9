package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.PaymentCaptureDeclinedEvent;
import io.durablecheckout.api.activity.PaymentCaptureOutcomeUnknownEvent;
import io.durablecheckout.api.activity.PaymentCaptureSucceededEvent;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.CaptureAwaitedEvent;
import io.durablecheckout.api.checkout.CheckoutCancellationRequestedEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.PaymentCaptureFailedEvent;
import io.durablecheckout.api.checkout.PaymentCaptureRequestedEvent;
import io.durablecheckout.api.checkout.PaymentCapturedEvent;
import io.durablecheckout.api.checkout.PaymentRefundRequestedEvent;
import io.durablecheckout.api.checkout.PaymentVoidRequestedEvent;
import io.durablecheckout.api.checkout.ReceiptSentEvent;
import io.durablecheckout.api.command.CapturePaymentCommand;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.Step;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.*;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.given;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.leaseTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.retryTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.leaseTimerDue;

/**
 * The capture step (rules version 3), decided by {@link CheckoutDecider}: captured on confirmation or when the tenant
 * calls capture; a refusal compensates with a void, an unknown outcome asks again under the same operation id; the
 * hold's lapse cancels a checkout whose capture was never asked for; a compensation refunds what a capture took.
 */
class CheckoutDeciderCaptureTest {

    private static final Instant CALLED_AT = T0.plusSeconds(3600);
    private static final Money PART = new Money(1_000, "EUR");

    private static PaymentCaptureRequestedEvent captureOf(Money amount, Instant at) {
        return new PaymentCaptureRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), amount,
                lease(Step.CAPTURE_PAYMENT, 1, at));
    }

    private static PaymentVoidRequestedEvent voidRequested(Instant at) {
        return new PaymentVoidRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                lease(Step.VOID_PAYMENT, 1, at));
    }

    private static CapturePaymentCommand capture(Money amount, Instant at) {
        return new CapturePaymentCommand(ID, amount, at);
    }

    @Nested
    class OnConfirmation {

        @Test
        void a_declined_capture_voids_the_authorization_and_records_why() {
            given(capturePendingHistory())
                    .when(record(new PaymentCaptureDeclinedEvent(ID, op(Step.CAPTURE_PAYMENT), token(1),
                            "hold expired"), CAPTURED_AT))
                    .events(new PaymentCaptureFailedEvent(ID, op(Step.CAPTURE_PAYMENT), token(1), "hold expired"),
                            voidRequested(CAPTURED_AT));
        }

        @Test
        void after_the_void_and_the_release_the_checkout_is_cancelled_for_the_capture_without_a_notice() {
            DeciderSpec.started()
                    .andDecided(record(stockReservationSucceeded(1), RESERVED_AT),
                            record(authorizationSucceeded(1), AUTHORIZED_AT),
                            record(new PaymentCaptureDeclinedEvent(ID, op(Step.CAPTURE_PAYMENT), token(1), "expired"),
                                    CAPTURED_AT),
                            record(new io.durablecheckout.api.activity.PaymentVoidSucceededEvent(ID,
                                    op(Step.VOID_PAYMENT), token(1), "psp-void"), CAPTURED_AT.plusSeconds(1)))
                    .when(record(new io.durablecheckout.api.activity.StockReleaseSucceededEvent(ID,
                            op(Step.RELEASE_STOCK), token(1)), CAPTURED_AT.plusSeconds(2)))
                    .events(new io.durablecheckout.api.checkout.StockReleasedEvent(ID, op(Step.RELEASE_STOCK), token(1)),
                            new io.durablecheckout.api.checkout.CheckoutCancelledEvent(ID,
                                    CancellationReason.CAPTURE_DECLINED, "expired"))
                    .leavesNoTimers();
        }

        @Test
        void a_capture_timeout_asks_again_under_the_same_operation_id_never_a_new_one() {
            Instant retryAt = CAPTURED_AT.plus(POLICY.retryDelay(1));
            given(capturePendingHistory())
                    .when(record(new PaymentCaptureOutcomeUnknownEvent(ID, op(Step.CAPTURE_PAYMENT), token(1),
                            "read timed out"), CAPTURED_AT))
                    .events(new ActivityRetryScheduledEvent(ID, Step.CAPTURE_PAYMENT, op(Step.CAPTURE_PAYMENT), 1,
                            retryAt, "capture outcome unknown: read timed out"))
                    .schedules(retryTimer(Step.CAPTURE_PAYMENT, 1, retryAt));
        }

        @Test
        void the_retried_capture_carries_the_same_operation_id_and_amount_with_the_next_token() {
            Instant retryAt = CAPTURED_AT.plus(POLICY.retryDelay(1));
            given(capturePendingHistory(), new ActivityRetryScheduledEvent(ID, Step.CAPTURE_PAYMENT,
                    op(Step.CAPTURE_PAYMENT), 1, retryAt, "capture outcome unknown: read timed out"))
                    .whenFired(retryTimer(Step.CAPTURE_PAYMENT, 1, retryAt))
                    .events(new PaymentCaptureRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                            new Lease(op(Step.CAPTURE_PAYMENT), 2, token(2), retryAt.plus(PAYMENT_LEASE))));
        }

        @Test
        void unknown_outcomes_that_use_up_the_attempts_go_to_manual_review() {
            DeciderSpec.started()
                    .andDecided(record(stockReservationSucceeded(1), RESERVED_AT),
                            record(authorizationSucceeded(1), AUTHORIZED_AT),
                            record(unknown(1), CAPTURED_AT))
                    .andDecided(DeciderSpec.retryTimer(Step.CAPTURE_PAYMENT, 1, CAPTURED_AT.plus(POLICY.retryDelay(1))))
                    .andDecided(record(unknown(2), CAPTURED_AT.plusSeconds(10)))
                    .andDecided(DeciderSpec.retryTimer(Step.CAPTURE_PAYMENT, 2,
                            CAPTURED_AT.plusSeconds(10).plus(POLICY.retryDelay(2))))
                    .when(record(unknown(3), CAPTURED_AT.plusSeconds(30)))
                    .events(new ManualReviewRequiredEvent(ID, Step.CAPTURE_PAYMENT, "capture-payment failed 3 times",
                            "operation chk-0001/capture-payment; last failure: capture outcome unknown: timeout"));
        }

        @Test
        void a_cancellation_waits_for_the_capture_in_flight_then_refunds_what_it_took() {
            given(capturePendingHistory(), new CheckoutCancellationRequestedEvent(ID,
                    CancellationReason.CUSTOMER_REQUEST, "changed my mind"))
                    .when(record(new PaymentCaptureSucceededEvent(ID, op(Step.CAPTURE_PAYMENT), token(1), CAPTURE_REF,
                            AMOUNT), CAPTURED_AT))
                    .events(new PaymentCapturedEvent(ID, op(Step.CAPTURE_PAYMENT), token(1), CAPTURE_REF, AMOUNT),
                            new PaymentRefundRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                                    lease(Step.REFUND_PAYMENT, 1, CAPTURED_AT)));
        }

        @Test
        void a_capture_call_is_not_needed_and_refused_before_the_capture_runs() {
            given(stockReservedHistory())
                    .when(capture(null, CALLED_AT))
                    .refused("only a deferred capture is called for");
        }

        @Test
        void a_capture_call_after_the_workflow_captured_is_refused_too() {
            given(completedHistory())
                    .when(capture(null, CALLED_AT))
                    .refused("only a deferred capture is called for");
        }

        private PaymentCaptureOutcomeUnknownEvent unknown(long token) {
            return new PaymentCaptureOutcomeUnknownEvent(ID, op(Step.CAPTURE_PAYMENT), token(token), "timeout");
        }
    }

    @Nested
    class Deferred {

        @Test
        void the_authorization_sends_the_receipt_first() {
            given(deferred(stockReservedHistory()))
                    .when(record(authorizationSucceeded(1), AUTHORIZED_AT))
                    .events(new io.durablecheckout.api.checkout.PaymentAuthorizedEvent(ID, op(Step.AUTHORIZE_PAYMENT),
                            token(1), PROVIDER_REF), confirmed(AUTHORIZED_AT), receiptRequested(1, AUTHORIZED_AT));
        }

        @Test
        void the_confirmation_schedules_the_hold_s_lapse() {
            given(deferred(stockReservedHistory()))
                    .when(record(authorizationSucceeded(1), AUTHORIZED_AT))
                    .schedules(holdTimer(AUTHORIZED_AT), leaseTimerDue(Step.SEND_RECEIPT, 1, AUTHORIZED_AT.plus(LEASE)));
        }

        @Test
        void the_captured_payment_completes_the_checkout() {
            given(concat(awaitingCaptureHistory(), captureOf(AMOUNT, CALLED_AT)))
                    .when(record(new PaymentCaptureSucceededEvent(ID, op(Step.CAPTURE_PAYMENT), token(1), CAPTURE_REF,
                            AMOUNT), CALLED_AT.plusSeconds(1)))
                    .events(new PaymentCapturedEvent(ID, op(Step.CAPTURE_PAYMENT), token(1), CAPTURE_REF, AMOUNT),
                            new CheckoutCompletedEvent(ID));
        }

        @Test
        void the_receipt_leaves_the_payment_awaiting_capture_until_the_hold_lapses() {
            given(deferredConfirmedHistory())
                    .when(record(receiptDelivered(1), RECEIPT_AT))
                    .events(new ReceiptSentEvent(ID, op(Step.SEND_RECEIPT), token(1)),
                            new CaptureAwaitedEvent(ID, AUTHORIZED_AT.plus(POLICY.holdValidity())))
                    .schedulesNothing();
        }

        @Test
        void the_tenant_captures_part_of_the_authorized_amount() {
            given(awaitingCaptureHistory())
                    .when(capture(PART, CALLED_AT))
                    .events(captureOf(PART, CALLED_AT))
                    .schedules(leaseTimer(Step.CAPTURE_PAYMENT, 1, CALLED_AT));
        }

        @Test
        void without_an_amount_the_whole_authorized_amount_is_captured() {
            given(awaitingCaptureHistory())
                    .when(capture(null, CALLED_AT))
                    .events(captureOf(AMOUNT, CALLED_AT));
        }

        @Test
        void the_same_capture_asked_again_changes_nothing_another_is_refused() {
            List<Object> captureAsked = concat(awaitingCaptureHistory(), captureOf(PART, CALLED_AT));
            given(captureAsked).when(capture(PART, CALLED_AT.plusSeconds(1))).nothing();
            given(captureAsked).when(capture(AMOUNT, CALLED_AT.plusSeconds(1))).refused("a payment is captured once");
        }

        @Test
        void more_than_authorized_another_currency_or_nothing_is_refused() {
            given(awaitingCaptureHistory()).when(capture(new Money(2_501, "EUR"), CALLED_AT))
                    .refused("a capture takes at most the authorized amount");
            given(awaitingCaptureHistory()).when(capture(new Money(100, "USD"), CALLED_AT))
                    .refused("a capture takes at most the authorized amount");
            given(awaitingCaptureHistory()).when(capture(new Money(0, "EUR"), CALLED_AT))
                    .refused("a capture takes at most the authorized amount");
        }

        @Test
        void a_capture_before_the_receipt_is_sent_is_refused() {
            given(deferredConfirmedHistory())
                    .when(capture(null, CALLED_AT))
                    .refused("a capture is called for in awaiting_capture");
        }

        @Test
        void a_checkout_of_the_rules_before_capture_refuses_a_capture_call() {
            given(completedHistoryUnderRules2())
                    .when(capture(null, CALLED_AT))
                    .refused("a capture is called for under rules version 3 on");
        }

        @Test
        void the_partial_capture_is_what_a_later_cancellation_refunds() {
            given(concat(awaitingCaptureHistory(), captureOf(PART, CALLED_AT),
                    new PaymentCapturedEvent(ID, op(Step.CAPTURE_PAYMENT), token(1), CAPTURE_REF, PART),
                    new CheckoutCompletedEvent(ID)))
                    .when(cancel(CALLED_AT.plusSeconds(60)))
                    .events(new CheckoutCancellationRequestedEvent(ID, CancellationReason.CUSTOMER_REQUEST,
                                    "changed my mind"),
                            new PaymentRefundRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), PART,
                                    lease(Step.REFUND_PAYMENT, 1, CALLED_AT.plusSeconds(60))));
        }

        @Test
        void a_cancellation_while_awaiting_capture_voids_at_once() {
            given(awaitingCaptureHistory())
                    .when(cancel(CALLED_AT))
                    .events(new CheckoutCancellationRequestedEvent(ID, CancellationReason.CUSTOMER_REQUEST,
                            "changed my mind"), voidRequested(CALLED_AT));
        }
    }

    @Nested
    class TheHoldLapses {

        private final Instant lapsedAt = AUTHORIZED_AT.plus(POLICY.holdValidity());

        @Test
        void uncaptured_and_never_asked_for_the_checkout_is_cancelled_with_a_void() {
            given(awaitingCaptureHistory())
                    .whenFired(holdTimer(AUTHORIZED_AT))
                    .events(new CheckoutCancellationRequestedEvent(ID, CancellationReason.HOLD_EXPIRED,
                                    "the authorization's hold lapsed at " + lapsedAt + " before a capture was asked for"),
                            voidRequested(lapsedAt));
        }

        @Test
        void once_a_capture_was_asked_for_its_answer_decides_not_the_deadline() {
            given(concat(awaitingCaptureHistory(), captureOf(AMOUNT, CALLED_AT)))
                    .whenFired(holdTimer(AUTHORIZED_AT))
                    .nothing();
        }

        @Test
        void a_captured_and_completed_checkout_is_left_alone() {
            given(completedHistory())
                    .whenFired(holdTimer(AUTHORIZED_AT))
                    .nothing();
        }

        @Test
        void while_the_receipt_is_in_flight_the_cancellation_waits_for_it() {
            given(deferredConfirmedHistory())
                    .whenFired(holdTimer(AUTHORIZED_AT))
                    .events(new CheckoutCancellationRequestedEvent(ID, CancellationReason.HOLD_EXPIRED,
                            "the authorization's hold lapsed at " + lapsedAt + " before a capture was asked for"));
        }

        @Test
        void the_provider_cancelling_the_uncaptured_authorization_cancels_the_checkout() {
            given(awaitingCaptureHistory())
                    .when(new io.durablecheckout.api.command.RecordProviderNotificationCommand(ID,
                            op(Step.AUTHORIZE_PAYMENT), io.durablecheckout.api.activity.PaymentLookupOutcome.DECLINED,
                            null, "evt_canceled", CALLED_AT))
                    .events(new CheckoutCancellationRequestedEvent(ID, CancellationReason.HOLD_EXPIRED,
                                    "the provider cancelled the authorization (notification evt_canceled) before a "
                                            + "capture was asked for"),
                            voidRequested(CALLED_AT));
        }

        @Test
        void a_cancellation_reported_after_the_capture_was_asked_for_is_a_dispute_for_an_operator() {
            given(concat(awaitingCaptureHistory(), captureOf(AMOUNT, CALLED_AT)))
                    .when(new io.durablecheckout.api.command.RecordProviderNotificationCommand(ID,
                            op(Step.AUTHORIZE_PAYMENT), io.durablecheckout.api.activity.PaymentLookupOutcome.DECLINED,
                            null, "evt_canceled", CALLED_AT.plusSeconds(1)))
                    .events(new io.durablecheckout.api.checkout.PaymentOutcomeDisputedEvent(ID,
                            io.durablecheckout.api.checkout.ManualResolution.AUTHORIZED,
                            io.durablecheckout.api.checkout.ManualResolution.DECLINED, "evt_canceled", null));
        }

        @Test
        void the_provider_reporting_the_checkout_s_own_void_is_no_dispute() {
            given(concat(awaitingCaptureHistory(), new CheckoutCancellationRequestedEvent(ID,
                    CancellationReason.CUSTOMER_REQUEST, "changed my mind"), voidRequested(CALLED_AT)))
                    .when(new io.durablecheckout.api.command.RecordProviderNotificationCommand(ID,
                            op(Step.AUTHORIZE_PAYMENT), io.durablecheckout.api.activity.PaymentLookupOutcome.DECLINED,
                            null, "evt_canceled", CALLED_AT.plusSeconds(1)))
                    .nothing();
        }

        @Test
        void an_operator_s_review_is_left_to_the_operator() {
            given(concat(confirmedHistory(), new ManualReviewRequiredEvent(ID, Step.SEND_RECEIPT, "stuck", "x")))
                    .whenFired(holdTimer(AUTHORIZED_AT))
                    .nothing();
        }

        @Test
        void the_end_of_a_checkout_cancels_the_hold_s_deadline() {
            given(concat(awaitingCaptureHistory(), captureOf(AMOUNT, CALLED_AT)))
                    .when(record(new PaymentCaptureSucceededEvent(ID, op(Step.CAPTURE_PAYMENT), token(1),
                            CAPTURE_REF, AMOUNT), CALLED_AT.plusSeconds(1)))
                    .cancels(leaseTimer(Step.CAPTURE_PAYMENT, 1, CALLED_AT), holdTimer(AUTHORIZED_AT));
        }
    }

    @Nested
    class TheCustomerSPart {

        private final String nextAction = "{\"type\":\"redirect_to_url\",\"redirect_to_url\":{\"url\":\"https://x\"}}";
        private final Instant until = AUTHORIZED_AT.plus(POLICY.customerActionTimeout());

        private List<Object> waitingForTheCustomer() {
            return concat(stockReservedHistory(), new io.durablecheckout.api.checkout.CustomerActionRequiredEvent(ID,
                    op(Step.AUTHORIZE_PAYMENT), token(1), nextAction, "pi_3ds", until));
        }

        @Test
        void a_payment_that_needs_the_customer_waits_for_them_with_a_deadline() {
            given(stockReservedHistory())
                    .when(record(new io.durablecheckout.api.activity.PaymentAuthorizationActionRequiredEvent(ID,
                            op(Step.AUTHORIZE_PAYMENT), token(1), nextAction, "pi_3ds"), AUTHORIZED_AT))
                    .events(new io.durablecheckout.api.checkout.CustomerActionRequiredEvent(ID,
                            op(Step.AUTHORIZE_PAYMENT), token(1), nextAction, "pi_3ds", until))
                    .cancels(leaseTimer(Step.AUTHORIZE_PAYMENT, 1, RESERVED_AT))
                    .schedules(Decision.Timer.customerAction(until));
        }

        @Test
        void the_provider_s_notification_settles_it_and_the_capture_follows() {
            Instant notifiedAt = AUTHORIZED_AT.plusSeconds(30);
            given(waitingForTheCustomer())
                    .when(new io.durablecheckout.api.command.RecordProviderNotificationCommand(ID,
                            op(Step.AUTHORIZE_PAYMENT), io.durablecheckout.api.activity.PaymentLookupOutcome.AUTHORIZED,
                            "pi_3ds", "evt_1", notifiedAt))
                    .events(new io.durablecheckout.api.checkout.PaymentAuthorizedEvent(ID, op(Step.AUTHORIZE_PAYMENT),
                            token(1), "pi_3ds"), confirmed(notifiedAt), captureRequested(1, notifiedAt));
        }

        @Test
        void nobody_acts_in_time_the_authorization_is_voided_and_the_stock_released() {
            given(waitingForTheCustomer())
                    .whenFired(Decision.Timer.customerAction(until))
                    .events(new CheckoutCancellationRequestedEvent(ID, CancellationReason.CUSTOMER_ACTION_TIMED_OUT,
                            "the customer did not complete the payment's authentication by " + until),
                            voidRequested(until));
        }

        @Test
        void after_the_notification_the_deadline_changes_nothing() {
            given(concat(waitingForTheCustomer(), new io.durablecheckout.api.checkout.PaymentAuthorizedEvent(ID,
                    op(Step.AUTHORIZE_PAYMENT), token(1), "pi_3ds"), confirmed(AUTHORIZED_AT),
                    captureRequested(1, AUTHORIZED_AT)))
                    .whenFired(Decision.Timer.customerAction(until))
                    .nothing();
        }

        @Test
        void the_customer_may_cancel_while_the_payment_waits_for_them() {
            given(waitingForTheCustomer())
                    .when(cancel(AUTHORIZED_AT.plusSeconds(5)))
                    .events(new CheckoutCancellationRequestedEvent(ID, CancellationReason.CUSTOMER_REQUEST,
                            "changed my mind"), voidRequested(AUTHORIZED_AT.plusSeconds(5)));
        }
    }

    private static List<Object> completedHistoryUnderRules2() {
        return concat(confirmedHistoryUnderRules2(), new ReceiptSentEvent(ID, op(Step.SEND_RECEIPT), token(1)),
                new CheckoutCompletedEvent(ID));
    }
}
