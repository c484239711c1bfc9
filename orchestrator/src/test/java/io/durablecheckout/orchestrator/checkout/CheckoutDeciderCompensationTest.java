package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.CancellationNoticeDeliverySucceededEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationDeclinedEvent;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.activity.PaymentRefundSucceededEvent;
import io.durablecheckout.api.activity.PaymentVoidSucceededEvent;
import io.durablecheckout.api.activity.StockReleaseSucceededEvent;
import io.durablecheckout.api.activity.StockReservationRejectedEvent;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.CancellationNoticeRequestedEvent;
import io.durablecheckout.api.checkout.CancellationNoticeSentEvent;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.CheckoutCancellationRequestedEvent;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentDeclinedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeUnknownEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.checkout.PaymentRefundRequestedEvent;
import io.durablecheckout.api.checkout.PaymentRefundedEvent;
import io.durablecheckout.api.checkout.PaymentVoidRequestedEvent;
import io.durablecheckout.api.checkout.PaymentVoidedEvent;
import io.durablecheckout.api.checkout.ReceiptSentEvent;
import io.durablecheckout.api.checkout.StockReleaseRequestedEvent;
import io.durablecheckout.api.checkout.StockReleasedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.checkout.StockReservedEvent;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.values.Step;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.captureSucceeded;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.CAPTURED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.underRules2;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AMOUNT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AUTHORIZED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.EMAIL;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ID;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.deferredConfirmedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.confirmedHistoryUnderRules2;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ITEMS;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.PROVIDER_REF;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RECEIPT_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RESERVED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RETRY_INITIAL;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.T0;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.TENANT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.attemptFailed;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.authorizationSucceeded;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.authorizationUnknown;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.cancel;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.completedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.concat;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.confirmedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.createdHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.lease;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.lookupAnswered;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.op;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.receiptDelivered;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.record;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservationSucceeded;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.token;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.given;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.leaseTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.lookupTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.retryTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.started;

/**
 * Cancellation in each state, decided by {@link CheckoutDecider}. A step in flight concludes first and its result handler compensates; a completed
 * checkout is refunded, released and told; a second request, or one for a checkout already being undone, is
 * acknowledged without events.
 */
class CheckoutDeciderCompensationTest {

    private static final String DETAIL = "changed my mind";
    private static final CheckoutCancellationRequestedEvent CANCEL_REQUESTED =
            new CheckoutCancellationRequestedEvent(ID, CancellationReason.CUSTOMER_REQUEST, DETAIL);
    private static final CheckoutCancelledEvent CANCELLED_BY_CUSTOMER =
            new CheckoutCancelledEvent(ID, CancellationReason.CUSTOMER_REQUEST, DETAIL);

    private static StockReleaseRequestedEvent releaseRequested(Instant at) {
        return new StockReleaseRequestedEvent(ID, TENANT, op(Step.RESERVE_STOCK), lease(Step.RELEASE_STOCK, 1, at));
    }

    private static StockReleaseSucceededEvent released() {
        return new StockReleaseSucceededEvent(ID, op(Step.RELEASE_STOCK), token(1));
    }

    private static PaymentVoidRequestedEvent voidRequested(Instant at) {
        return new PaymentVoidRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                lease(Step.VOID_PAYMENT, 1, at));
    }

    private static PaymentRefundRequestedEvent refundRequested(Instant at) {
        return new PaymentRefundRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                lease(Step.REFUND_PAYMENT, 1, at));
    }

    @Nested
    class WhileTheReservationIsInFlight {

        private final Instant cancelAt = T0.plusMillis(500);

        @Test
        void the_request_is_recorded_and_waits_for_the_reservation() {
            given(createdHistory())
                    .when(cancel(cancelAt))
                    .events(CANCEL_REQUESTED)
                    .cancelsNothing()
                    .schedulesNothing();
        }

        @Test
        void the_reservation_that_concludes_afterwards_is_released() {
            given(concat(createdHistory(), CANCEL_REQUESTED))
                    .when(record(stockReservationSucceeded(1), RESERVED_AT))
                    .events(
                            new StockReservedEvent(ID, op(Step.RESERVE_STOCK), token(1)),
                            releaseRequested(RESERVED_AT))
                    .cancels(leaseTimer(Step.RESERVE_STOCK, 1, T0))
                    .schedules(leaseTimer(Step.RELEASE_STOCK, 1, RESERVED_AT));
        }

        @Test
        void the_release_ends_in_cancelled_with_the_customers_reason() {
            given(concat(createdHistory(), CANCEL_REQUESTED,
                            new StockReservedEvent(ID, op(Step.RESERVE_STOCK), token(1)),
                            releaseRequested(RESERVED_AT)))
                    .when(record(released(), AUTHORIZED_AT))
                    .events(new StockReleasedEvent(ID, op(Step.RELEASE_STOCK), token(1)), CANCELLED_BY_CUSTOMER);
        }

        @Test
        void a_reservation_rejected_afterwards_cancels_with_the_rejection_reason() {
            given(concat(createdHistory(), CANCEL_REQUESTED))
                    .when(record(new StockReservationRejectedEvent(ID, op(Step.RESERVE_STOCK), token(1),
                            CancellationReason.OUT_OF_STOCK, "SKU-RED-MUG"), RESERVED_AT))
                    .events(new CheckoutCancelledEvent(ID, CancellationReason.OUT_OF_STOCK, "SKU-RED-MUG"));
        }

        @Test
        void the_whole_way_through_decisions_leaves_no_timer_behind() {
            started()
                    .andDecided(cancel(cancelAt), record(stockReservationSucceeded(1), RESERVED_AT))
                    .when(record(released(), AUTHORIZED_AT))
                    .events(new StockReleasedEvent(ID, op(Step.RELEASE_STOCK), token(1)), CANCELLED_BY_CUSTOMER)
                    .leavesNoTimers();
        }
    }

    @Nested
    class WhileTheAuthorizationIsInFlight {

        private final Instant cancelAt = RESERVED_AT.plusMillis(500);

        @Test
        void the_request_is_recorded_and_waits_for_the_authorization() {
            given(stockReservedHistory())
                    .when(cancel(cancelAt))
                    .events(CANCEL_REQUESTED);
        }

        @Test
        void an_authorization_that_succeeds_afterwards_is_voided_instead_of_confirmed() {
            given(concat(stockReservedHistory(), CANCEL_REQUESTED))
                    .when(record(authorizationSucceeded(1), AUTHORIZED_AT))
                    .events(
                            new PaymentAuthorizedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), PROVIDER_REF),
                            voidRequested(AUTHORIZED_AT))
                    .cancels(leaseTimer(Step.AUTHORIZE_PAYMENT, 1, RESERVED_AT))
                    .schedules(leaseTimer(Step.VOID_PAYMENT, 1, AUTHORIZED_AT));
        }

        @Test
        void the_void_releases_the_stock() {
            given(concat(stockReservedHistory(), CANCEL_REQUESTED,
                            new PaymentAuthorizedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), PROVIDER_REF),
                            voidRequested(AUTHORIZED_AT)))
                    .when(record(new PaymentVoidSucceededEvent(ID, op(Step.VOID_PAYMENT), token(1), "psp-void-1"),
                            RECEIPT_AT))
                    .events(
                            new PaymentVoidedEvent(ID, op(Step.VOID_PAYMENT), token(1), "psp-void-1"),
                            releaseRequested(RECEIPT_AT));
        }

        @Test
        void the_release_after_the_void_ends_in_cancelled() {
            given(concat(stockReservedHistory(), CANCEL_REQUESTED,
                            new PaymentAuthorizedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), PROVIDER_REF),
                            voidRequested(AUTHORIZED_AT),
                            new PaymentVoidedEvent(ID, op(Step.VOID_PAYMENT), token(1), "psp-void-1"),
                            releaseRequested(RECEIPT_AT)))
                    .when(record(released(), RECEIPT_AT.plusSeconds(1)))
                    .events(new StockReleasedEvent(ID, op(Step.RELEASE_STOCK), token(1)), CANCELLED_BY_CUSTOMER);
        }

        @Test
        void a_decline_afterwards_releases_and_keeps_the_customers_reason() {
            given(concat(stockReservedHistory(), CANCEL_REQUESTED))
                    .when(record(new PaymentAuthorizationDeclinedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1),
                            "insufficient funds"), AUTHORIZED_AT))
                    .events(
                            new PaymentDeclinedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), "insufficient funds"),
                            releaseRequested(AUTHORIZED_AT));
        }

        @Test
        void the_release_after_such_a_decline_cancels_as_the_customer_asked() {
            given(concat(stockReservedHistory(), CANCEL_REQUESTED,
                            new PaymentDeclinedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), "insufficient funds"),
                            releaseRequested(AUTHORIZED_AT)))
                    .when(record(released(), RECEIPT_AT))
                    .events(new StockReleasedEvent(ID, op(Step.RELEASE_STOCK), token(1)), CANCELLED_BY_CUSTOMER);
        }
    }

    @Nested
    class WhileTheAuthorizationWaitsForARetry {

        private final Instant failedAt = AUTHORIZED_AT;
        private final Instant cancelAt = AUTHORIZED_AT.plusMillis(500);

        @Test
        void the_authorization_is_voided_at_once_under_its_operation_id() {
            given(concat(stockReservedHistory(),
                            new ActivityRetryScheduledEvent(ID, Step.AUTHORIZE_PAYMENT, op(Step.AUTHORIZE_PAYMENT), 1,
                                    failedAt.plus(RETRY_INITIAL), "HTTP 500")))
                    .when(cancel(cancelAt))
                    .events(CANCEL_REQUESTED, voidRequested(cancelAt))
                    .cancelsNothing()
                    .schedules(leaseTimer(Step.VOID_PAYMENT, 1, cancelAt));
        }

        @Test
        void the_pending_retry_does_not_authorize_again_once_the_void_is_under_way() {
            started()
                    .andDecided(
                            record(stockReservationSucceeded(1), RESERVED_AT),
                            record(attemptFailed(Step.AUTHORIZE_PAYMENT, 1), failedAt),
                            cancel(cancelAt))
                    .whenFired(retryTimer(Step.AUTHORIZE_PAYMENT, 1, failedAt.plus(RETRY_INITIAL)))
                    .nothing();
        }
    }

    @Nested
    class WhileAStepWaitsForARetry {

        @Test
        void a_reservation_between_attempts_is_still_retried_so_that_what_it_may_hold_is_released() {
            Instant retryAt = RESERVED_AT.plus(RETRY_INITIAL);
            started()
                    .andDecided(
                            record(attemptFailed(Step.RESERVE_STOCK, 1), RESERVED_AT),
                            cancel(RESERVED_AT.plusMillis(500)))
                    .whenFired(retryTimer(Step.RESERVE_STOCK, 1, retryAt))
                    .events(new StockReservationRequestedEvent(ID, TENANT,
                            ITEMS, lease(Step.RESERVE_STOCK, 2, retryAt)))
                    .schedules(leaseTimer(Step.RESERVE_STOCK, 2, retryAt));
        }

        @Test
        void a_compensation_between_attempts_is_retried() {
            Instant failedAt = RECEIPT_AT;
            Instant retryAt = failedAt.plus(RETRY_INITIAL);
            started()
                    .andDecided(
                            record(stockReservationSucceeded(1), RESERVED_AT),
                            record(new PaymentAuthorizationDeclinedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1),
                                    "insufficient funds"), AUTHORIZED_AT),
                            record(attemptFailed(Step.RELEASE_STOCK, 1), failedAt))
                    .whenFired(retryTimer(Step.RELEASE_STOCK, 1, retryAt))
                    .events(new StockReleaseRequestedEvent(ID, TENANT, op(Step.RESERVE_STOCK),
                            lease(Step.RELEASE_STOCK, 2, retryAt)));
        }
    }

    @Nested
    class WhileThePaymentOutcomeIsUnknown {

        @Test
        void the_request_waits_and_a_lookup_that_finds_the_authorization_voids_it() {
            Instant lookupAt = AUTHORIZED_AT.plusSeconds(2);
            Instant answeredAt = lookupAt.plusSeconds(1);
            given(concat(stockReservedHistory(),
                            new PaymentOutcomeUnknownEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), "provider timeout"),
                            new PaymentReconciliationScheduledEvent(ID, op(Step.AUTHORIZE_PAYMENT), 1, lookupAt,
                                    "provider timeout"),
                            new PaymentReconciliationRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), 1,
                                    lease(Step.RECONCILE_PAYMENT, 1, lookupAt)),
                            CANCEL_REQUESTED))
                    .when(record(lookupAnswered(1, PaymentLookupOutcome.AUTHORIZED, "psp-auth-77"), answeredAt))
                    .events(
                            new PaymentAuthorizedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), "psp-auth-77"),
                            voidRequested(answeredAt));
        }

        @Test
        void a_cancellation_does_not_stop_the_reconciliation() {
            started()
                    .andDecided(
                            record(stockReservationSucceeded(1), RESERVED_AT),
                            record(authorizationUnknown(1), AUTHORIZED_AT),
                            cancel(AUTHORIZED_AT.plusMillis(500)))
                    .whenFired(lookupTimer(1, AUTHORIZED_AT.plusSeconds(2)))
                    .events(new PaymentReconciliationRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), 1,
                            lease(Step.RECONCILE_PAYMENT, 1, AUTHORIZED_AT.plusSeconds(2))))
                    .schedules(leaseTimer(Step.RECONCILE_PAYMENT, 1, AUTHORIZED_AT.plusSeconds(2)));
        }
    }

    @Nested
    class WhileTheReceiptIsInFlight {

        @Test
        void the_request_waits_for_the_receipt() {
            given(confirmedHistory())
                    .when(cancel(RECEIPT_AT))
                    .events(CANCEL_REQUESTED);
        }

        @Test
        void the_receipt_is_followed_by_a_refund_of_what_the_capture_took() {
            Instant sentAt = RECEIPT_AT.plusSeconds(1);
            given(concat(confirmedHistory(), CANCEL_REQUESTED))
                    .when(record(receiptDelivered(1), sentAt))
                    .events(
                            new ReceiptSentEvent(ID, op(Step.SEND_RECEIPT), token(1)),
                            refundRequested(sentAt));
        }

        @Test
        void a_deferred_capture_s_receipt_is_followed_by_a_void_because_nothing_was_captured() {
            Instant sentAt = RECEIPT_AT.plusSeconds(1);
            given(concat(deferredConfirmedHistory(), CANCEL_REQUESTED))
                    .when(record(receiptDelivered(1), sentAt))
                    .events(
                            new ReceiptSentEvent(ID, op(Step.SEND_RECEIPT), token(1)),
                            voidRequested(sentAt));
        }

        @Test
        void under_rules_2_the_receipt_completes_the_checkout_and_the_refund_follows() {
            Instant sentAt = RECEIPT_AT.plusSeconds(1);
            given(concat(confirmedHistoryUnderRules2(), CANCEL_REQUESTED))
                    .when(record(receiptDelivered(1), sentAt))
                    .events(
                            new ReceiptSentEvent(ID, op(Step.SEND_RECEIPT), token(1)),
                            new CheckoutCompletedEvent(ID),
                            refundRequested(sentAt));
        }
    }

    @Nested
    class AfterCompletion {

        private final Instant cancelAt = T0.plusSeconds(3600);
        private final Instant refundedAt = cancelAt.plusSeconds(2);
        private final Instant releasedAt = cancelAt.plusSeconds(4);
        private final Instant noticeAt = cancelAt.plusSeconds(6);

        private List<Object> refundRequestedHistory() {
            return concat(completedHistory(), CANCEL_REQUESTED, refundRequested(cancelAt));
        }

        private List<Object> refundConfirmedHistory() {
            return concat(refundRequestedHistory(),
                    new PaymentRefundedEvent(ID, op(Step.REFUND_PAYMENT), token(1), "psp-refund-1"),
                    releaseRequested(refundedAt));
        }

        private List<Object> noticeRequestedHistory() {
            return concat(refundConfirmedHistory(),
                    new StockReleasedEvent(ID, op(Step.RELEASE_STOCK), token(1)),
                    new CancellationNoticeRequestedEvent(ID, TENANT, EMAIL,
                            lease(Step.SEND_CANCELLATION_NOTICE, 1, releasedAt)));
        }

        @Test
        void a_completed_checkout_is_refunded_under_the_authorization_operation_id() {
            given(completedHistory())
                    .when(cancel(cancelAt))
                    .events(CANCEL_REQUESTED, refundRequested(cancelAt))
                    .cancelsNothing()
                    .schedules(leaseTimer(Step.REFUND_PAYMENT, 1, cancelAt));
        }

        @Test
        void an_operator_may_cancel_a_completed_checkout_too() {
            given(completedHistory())
                    .when(new RequestCancellationCommand(ID, CancellationReason.OPERATOR_REQUEST, "fraud suspected",
                            null, cancelAt))
                    .events(
                            new CheckoutCancellationRequestedEvent(ID, CancellationReason.OPERATOR_REQUEST,
                                    "fraud suspected"),
                            refundRequested(cancelAt));
        }

        @Test
        void the_confirmed_refund_releases_the_stock() {
            given(refundRequestedHistory())
                    .when(record(new PaymentRefundSucceededEvent(ID, op(Step.REFUND_PAYMENT), token(1), "psp-refund-1"),
                            refundedAt))
                    .events(
                            new PaymentRefundedEvent(ID, op(Step.REFUND_PAYMENT), token(1), "psp-refund-1"),
                            releaseRequested(refundedAt))
                    .cancels(leaseTimer(Step.REFUND_PAYMENT, 1, cancelAt))
                    .schedules(leaseTimer(Step.RELEASE_STOCK, 1, refundedAt));
        }

        @Test
        void after_the_release_the_customer_is_told_because_a_receipt_cannot_be_unsent() {
            given(refundConfirmedHistory())
                    .when(record(released(), releasedAt))
                    .events(
                            new StockReleasedEvent(ID, op(Step.RELEASE_STOCK), token(1)),
                            new CancellationNoticeRequestedEvent(ID, TENANT, EMAIL,
                                    lease(Step.SEND_CANCELLATION_NOTICE, 1, releasedAt)));
        }

        @Test
        void the_delivered_notice_ends_in_cancelled() {
            given(noticeRequestedHistory())
                    .when(record(new CancellationNoticeDeliverySucceededEvent(ID, op(Step.SEND_CANCELLATION_NOTICE),
                            token(1)), noticeAt))
                    .events(
                            new CancellationNoticeSentEvent(ID, op(Step.SEND_CANCELLATION_NOTICE), token(1)),
                            CANCELLED_BY_CUSTOMER);
        }

        @Test
        void the_whole_way_through_decisions_leaves_no_timer_behind() {
            started()
                    .andDecided(
                            record(stockReservationSucceeded(1), RESERVED_AT),
                            record(authorizationSucceeded(1), AUTHORIZED_AT),
                            record(captureSucceeded(1), CAPTURED_AT),
                            record(receiptDelivered(1), RECEIPT_AT),
                            cancel(cancelAt),
                            record(new PaymentRefundSucceededEvent(ID, op(Step.REFUND_PAYMENT), token(1), "psp-refund-1"),
                                    refundedAt),
                            record(released(), releasedAt))
                    .when(record(new CancellationNoticeDeliverySucceededEvent(ID, op(Step.SEND_CANCELLATION_NOTICE),
                            token(1)), noticeAt))
                    .events(
                            new CancellationNoticeSentEvent(ID, op(Step.SEND_CANCELLATION_NOTICE), token(1)),
                            CANCELLED_BY_CUSTOMER)
                    .cancels(leaseTimer(Step.SEND_CANCELLATION_NOTICE, 1, releasedAt))
                    .schedulesNothing()
                    .leavesNoTimers();
        }

        @Test
        void a_second_request_while_refunding_is_acknowledged_without_events() {
            given(refundRequestedHistory())
                    .when(cancel(cancelAt.plusSeconds(1)))
                    .nothing();
        }
    }

    @Nested
    class FromManualReview {

        private final Instant cancelAt = T0.plusSeconds(600);

        @Test
        void blocked_on_the_reservation_the_stock_is_released() {
            given(concat(createdHistory(), new ManualReviewRequiredEvent(ID, Step.RESERVE_STOCK,
                            "reserve-stock failed 3 times", "operation chk-0001/reserve-stock")))
                    .when(cancel(cancelAt))
                    .events(CANCEL_REQUESTED, releaseRequested(cancelAt));
        }

        @Test
        void blocked_on_the_payment_outcome_the_authorization_is_voided() {
            given(concat(stockReservedHistory(), new ManualReviewRequiredEvent(ID, Step.AUTHORIZE_PAYMENT,
                            "authorize-payment failed 3 times", "operation chk-0001/authorize-payment")))
                    .when(cancel(cancelAt))
                    .events(CANCEL_REQUESTED, voidRequested(cancelAt));
        }

        @Test
        void blocked_on_the_receipt_the_customer_is_told_after_void_and_release_since_a_receipt_may_have_gone_out() {
            Instant voidedAt = cancelAt.plusSeconds(1);
            Instant releasedAt = cancelAt.plusSeconds(2);
            given(concat(confirmedHistory(), new ManualReviewRequiredEvent(ID, Step.SEND_RECEIPT,
                                    "send-receipt failed 3 times", "operation chk-0001/send-receipt"),
                            CANCEL_REQUESTED, voidRequested(cancelAt),
                            new PaymentVoidedEvent(ID, op(Step.VOID_PAYMENT), token(1), "void-ref"),
                            releaseRequested(voidedAt)))
                    .when(record(released(), releasedAt))
                    .events(new StockReleasedEvent(ID, op(Step.RELEASE_STOCK), token(1)),
                            new CancellationNoticeRequestedEvent(ID, TENANT, EMAIL,
                                    lease(Step.SEND_CANCELLATION_NOTICE, 1, releasedAt)));
        }

        @Test
        void blocked_on_a_compensation_the_compensation_is_tried_again() {
            given(concat(stockReservedHistory(),
                            new PaymentDeclinedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), "insufficient funds"),
                            releaseRequested(AUTHORIZED_AT),
                            new ManualReviewRequiredEvent(ID, Step.RELEASE_STOCK, "release-stock failed 3 times",
                                    "operation chk-0001/release-stock")))
                    .when(cancel(cancelAt))
                    .events(CANCEL_REQUESTED, new StockReleaseRequestedEvent(ID, TENANT, op(Step.RESERVE_STOCK),
                            lease(Step.RELEASE_STOCK, 2, cancelAt)))
                    .schedules(leaseTimer(Step.RELEASE_STOCK, 2, cancelAt));
        }
    }

    @Nested
    class Idempotence {

        @Test
        void cancelling_twice_records_one_request() {
            given(concat(createdHistory(), CANCEL_REQUESTED))
                    .when(cancel(RESERVED_AT))
                    .nothing();
        }

        @Test
        void cancelling_a_cancelled_checkout_changes_nothing() {
            given(concat(createdHistory(), new CheckoutCancelledEvent(ID, CancellationReason.OUT_OF_STOCK,
                            "SKU-RED-MUG")))
                    .when(cancel(RESERVED_AT))
                    .nothing();
        }

        @Test
        void cancelling_while_a_decline_is_being_compensated_changes_nothing() {
            given(concat(stockReservedHistory(),
                            new PaymentDeclinedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), "insufficient funds"),
                            releaseRequested(AUTHORIZED_AT)))
                    .when(cancel(RECEIPT_AT))
                    .nothing();
        }
    }
}
