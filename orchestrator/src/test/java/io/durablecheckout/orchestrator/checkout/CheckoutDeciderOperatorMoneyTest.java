package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.PaymentCaptureDeclinedEvent;
import io.durablecheckout.api.activity.PaymentCaptureSucceededEvent;
import io.durablecheckout.api.activity.PaymentRefundSucceededEvent;
import io.durablecheckout.api.activity.PaymentVoidSucceededEvent;
import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.CheckoutCancellationRequestedEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.OperatorRetryRequestedEvent;
import io.durablecheckout.api.checkout.PaymentCaptureFailedEvent;
import io.durablecheckout.api.checkout.PaymentCaptureRequestedEvent;
import io.durablecheckout.api.checkout.PaymentCapturedEvent;
import io.durablecheckout.api.checkout.PaymentOperationOrderedEvent;
import io.durablecheckout.api.checkout.PaymentRefundRequestedEvent;
import io.durablecheckout.api.checkout.PaymentRefundedEvent;
import io.durablecheckout.api.checkout.PaymentVoidRequestedEvent;
import io.durablecheckout.api.checkout.PaymentVoidedEvent;
import io.durablecheckout.api.checkout.ReceiptSentEvent;
import io.durablecheckout.api.checkout.StockReleaseRequestedEvent;
import io.durablecheckout.api.command.RefundPaymentCommand;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.command.SettleHoldCommand;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Workflow.OperatorAction;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.*;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.given;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.retryTimer;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An operator's payment operations on a completed checkout (decisions 130 and 131): a partial refund of captured money
 * under an operation id of its own, and the capture or release of a hold recorded before capture was a step. Each
 * leaves the checkout completed, retries under its own id, and is fenced like every step.
 */
class CheckoutDeciderOperatorMoneyTest {

    private static final Instant AT = T0.plusSeconds(3_600);
    private static final Money PART = new Money(1_000, "EUR");
    private static final Money REST = new Money(1_500, "EUR");
    private static final OperationId REFUND_1 = new OperationId("chk-0001/refund-payment/operator-1");
    private static final OperationId REFUND_2 = new OperationId("chk-0001/refund-payment/operator-2");
    private static final OperationId HOLD_CAPTURE = new OperationId("chk-0001/capture-payment/legacy-hold");
    private static final OperationId HOLD_RELEASE = new OperationId("chk-0001/void-payment/legacy-hold");

    private static RefundPaymentCommand refund(Money amount, Instant at) {
        return new RefundPaymentCommand(ID, amount, null, at);
    }

    private static Lease opLease(OperationId op, int attempt, long token, Instant at) {
        return new Lease(op, attempt, token(token), at.plus(PAYMENT_LEASE));
    }

    private static PaymentRefundRequestedEvent refundRequested(OperationId op, Money amount, int attempt, long token,
                                                               Instant at) {
        return new PaymentRefundRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), amount,
                opLease(op, attempt, token, at));
    }

    /** Completed, captured, the first partial refund (1000 of 2500) ordered at AT and in flight. */
    private static List<Object> refundInFlight() {
        return concat(completedHistory(), new PaymentOperationOrderedEvent(ID, Step.REFUND_PAYMENT, REFUND_1, PART),
                refundRequested(REFUND_1, PART, 1, 1, AT));
    }

    /** Completed, captured, 1000 of 2500 refunded by an operator. */
    private static List<Object> partlyRefunded() {
        return concat(refundInFlight(), new PaymentRefundedEvent(ID, REFUND_1, token(1), "re_1"));
    }

    /** Completed under rules version 2: no capture step, the authorization still held. */
    private static List<Object> legacyCompleted() {
        return concat(confirmedHistoryUnderRules2(), new ReceiptSentEvent(ID, op(Step.SEND_RECEIPT), token(1)),
                new CheckoutCompletedEvent(ID));
    }

    private static CheckoutFacts facts(List<Object> history) {
        CheckoutFacts facts = CheckoutFacts.INITIAL;
        for (Object e : history) {
            facts = facts.evolve((CheckoutEvent) e);
        }
        return facts;
    }

    private static RequestCancellationCommand operatorCancel(Instant at) {
        return new RequestCancellationCommand(ID, CancellationReason.OPERATOR_REQUEST, "goods returned", null, at);
    }

    @Nested
    class PartialRefund {

        @Test
        void is_ordered_and_issued_under_an_operation_id_of_its_own_leaving_the_checkout_completed() {
            given(completedHistory())
                    .when(refund(PART, AT))
                    .events(new PaymentOperationOrderedEvent(ID, Step.REFUND_PAYMENT, REFUND_1, PART),
                            refundRequested(REFUND_1, PART, 1, 1, AT))
                    .schedules(DeciderSpec.leaseTimerDue(Step.REFUND_PAYMENT, 1, AT.plus(PAYMENT_LEASE)))
                    .cancelsNothing();
            assertThat(facts(refundInFlight()).state()).isEqualTo(CheckoutState.COMPLETED);
        }

        @Test
        void its_success_is_recorded_the_checkout_stays_completed_and_the_rest_remains_refundable() {
            given(refundInFlight())
                    .when(record(new PaymentRefundSucceededEvent(ID, REFUND_1, token(1), "re_1"), AT.plusSeconds(1)))
                    .events(new PaymentRefundedEvent(ID, REFUND_1, token(1), "re_1"))
                    .cancels(DeciderSpec.leaseTimerDue(Step.REFUND_PAYMENT, 1, AT.plus(PAYMENT_LEASE)));
            CheckoutFacts after = facts(partlyRefunded());
            assertThat(after.state()).isEqualTo(CheckoutState.COMPLETED);
            assertThat(after.refundable()).isEqualTo(REST);
            assertThat(after.operatorOperationOpen()).isFalse();
        }

        @Test
        void a_second_one_takes_the_next_operation_id_a_fresh_attempt_and_the_next_token_up_to_the_rest() {
            given(partlyRefunded())
                    .when(refund(REST, AT.plusSeconds(60)))
                    .events(new PaymentOperationOrderedEvent(ID, Step.REFUND_PAYMENT, REFUND_2, REST),
                            refundRequested(REFUND_2, REST, 1, 2, AT.plusSeconds(60)));
        }

        @Test
        void more_than_what_was_captured_and_not_refunded_is_refused() {
            given(partlyRefunded())
                    .when(refund(new Money(1_501, "EUR"), AT.plusSeconds(60)))
                    .refused("a refund returns at most what was captured and not refunded");
            given(completedHistory())
                    .when(refund(new Money(2_501, "EUR"), AT))
                    .refusedWithMessage("The refund must be more than 0 and at most the 2500 EUR captured and not "
                            + "refunded yet, was 2501 EUR");
        }

        @Test
        void nothing_negative_or_in_another_currency_is_refunded() {
            given(completedHistory()).when(refund(new Money(0, "EUR"), AT))
                    .refused("a refund returns at most what was captured and not refunded");
            given(completedHistory()).when(refund(new Money(-1, "EUR"), AT))
                    .refused("a refund returns at most what was captured and not refunded");
            given(completedHistory()).when(refund(new Money(2_500, "EUR"), AT))
                    .events(new PaymentOperationOrderedEvent(ID, Step.REFUND_PAYMENT, REFUND_1, AMOUNT),
                            refundRequested(REFUND_1, AMOUNT, 1, 1, AT));
            given(completedHistory()).when(refund(new Money(100, "USD"), AT))
                    .refused("a refund is in the currency captured");
            given(completedHistory()).when(refund(null, AT))
                    .refused("a refund is in the currency captured");
        }

        @Test
        void where_nothing_was_captured_it_is_refused() {
            given(legacyCompleted()).when(refund(PART, AT))
                    .refused("a refund returns money a capture took");
        }

        @Test
        void only_on_a_completed_checkout_and_one_operation_at_a_time() {
            given(confirmedHistory()).when(refund(PART, AT))
                    .refusedWithMessage("Checkout is confirmed, not completed");
            given(refundInFlight()).when(refund(PART, AT.plusSeconds(1)))
                    .refused("one operator payment operation at a time");
            given(concat(completedHistory(), new CheckoutCancellationRequestedEvent(ID,
                    CancellationReason.OPERATOR_REQUEST, "x")))
                    .when(refund(PART, AT))
                    .refused("an operator's payment operation is made on a completed checkout");
        }

        @Test
        void a_cancel_waits_until_the_operation_concluded() {
            given(refundInFlight()).when(operatorCancel(AT.plusSeconds(1)))
                    .refused("one operator payment operation at a time");
        }

        @Test
        void a_cancel_after_it_refunds_only_the_rest_under_the_refund_s_own_operation_id() {
            given(partlyRefunded())
                    .when(operatorCancel(AT.plusSeconds(60)))
                    .events(new CheckoutCancellationRequestedEvent(ID, CancellationReason.OPERATOR_REQUEST,
                                    "goods returned"),
                            new PaymentRefundRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), REST,
                                    new Lease(op(Step.REFUND_PAYMENT), 1, token(2),
                                            AT.plusSeconds(60).plus(PAYMENT_LEASE))));
        }

        @Test
        void a_cancel_after_refunds_returned_everything_refunds_nothing_more() {
            List<Object> refundedInFull = concat(partlyRefunded(),
                    new PaymentOperationOrderedEvent(ID, Step.REFUND_PAYMENT, REFUND_2, REST),
                    refundRequested(REFUND_2, REST, 1, 2, AT.plusSeconds(60)),
                    new PaymentRefundedEvent(ID, REFUND_2, token(2), "re_2"));
            assertThat(Workflow.operatorActions(facts(refundedInFull))).containsExactly(OperatorAction.CANCEL);
            given(refundedInFull)
                    .when(operatorCancel(AT.plusSeconds(120)))
                    .events(new CheckoutCancellationRequestedEvent(ID, CancellationReason.OPERATOR_REQUEST,
                                    "goods returned"),
                            new StockReleaseRequestedEvent(ID, TENANT, op(Step.RESERVE_STOCK),
                                    lease(Step.RELEASE_STOCK, 1, AT.plusSeconds(120))));
        }

        @Test
        void a_failed_attempt_is_tried_again_under_the_same_operation_id() {
            Instant failedAt = AT.plusSeconds(1);
            Instant retryAt = failedAt.plus(POLICY.retryDelay(1));
            given(refundInFlight())
                    .when(record(new ActivityAttemptFailedEvent(ID, Step.REFUND_PAYMENT, REFUND_1, token(1),
                            "provider unavailable"), failedAt))
                    .events(new ActivityRetryScheduledEvent(ID, Step.REFUND_PAYMENT, REFUND_1, 1, retryAt,
                            "provider unavailable"));
            given(refundInFlight(), new ActivityRetryScheduledEvent(ID, Step.REFUND_PAYMENT, REFUND_1, 1, retryAt,
                    "provider unavailable"))
                    .whenFired(retryTimer(Step.REFUND_PAYMENT, 1, retryAt))
                    .events(refundRequested(REFUND_1, PART, 2, 2, retryAt));
        }

        @Test
        void an_expired_lease_issues_it_again_under_the_same_operation_id() {
            Instant due = AT.plus(PAYMENT_LEASE);
            List<Object> claimed = concat(refundInFlight(), new io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent(
                    ID, Step.REFUND_PAYMENT, opLease(REFUND_1, 1, 1, AT)));
            given(claimed)
                    .whenFired(new Deadlines.ObservedLeaseExpiry(Step.REFUND_PAYMENT, token(1), true), due)
                    .events(new io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent(ID, Step.REFUND_PAYMENT,
                                    opLease(REFUND_1, 1, 1, AT)),
                            refundRequested(REFUND_1, PART, 2, 2, due));
        }

        @Test
        void a_result_of_another_operation_of_the_step_is_fenced_out() {
            given(refundInFlight())
                    .when(record(new PaymentRefundSucceededEvent(ID, op(Step.REFUND_PAYMENT), token(1), "re_x"),
                            AT.plusSeconds(1)))
                    .events(new ActivityResultRejectedEvent(ID, Step.REFUND_PAYMENT, op(Step.REFUND_PAYMENT),
                            token(1), token(1)));
        }

        @Test
        void attempts_used_up_block_it_in_review_and_its_success_after_a_retry_completes_the_checkout_again() {
            List<Object> blocked = concat(refundInFlight(),
                    new ManualReviewRequiredEvent(ID, Step.REFUND_PAYMENT, "refund-payment failed 3 times", "x"));
            assertThat(facts(blocked).state()).isEqualTo(CheckoutState.MANUAL_REVIEW);
            assertThat(facts(blocked).operatorOperationOpen()).isTrue();
            given(blocked).when(new RetryActivityCommand(ID, null, AT.plusSeconds(100)))
                    .events(new OperatorRetryRequestedEvent(ID, Step.REFUND_PAYMENT),
                            refundRequested(REFUND_1, PART, 2, 2, AT.plusSeconds(100)));
            given(blocked, new OperatorRetryRequestedEvent(ID, Step.REFUND_PAYMENT),
                    refundRequested(REFUND_1, PART, 2, 2, AT.plusSeconds(100)))
                    .when(record(new PaymentRefundSucceededEvent(ID, REFUND_1, token(2), "re_1"), AT.plusSeconds(101)))
                    .events(new PaymentRefundedEvent(ID, REFUND_1, token(2), "re_1"), new CheckoutCompletedEvent(ID));
            given(blocked).when(operatorCancel(AT.plusSeconds(100)))
                    .refused("one operator payment operation at a time");
        }
    }

    @Nested
    class LegacyHold {

        @Test
        void is_captured_through_the_capture_request_under_an_operation_id_of_its_own() {
            given(legacyCompleted())
                    .when(new SettleHoldCommand(ID, true, null, AT))
                    .events(new PaymentOperationOrderedEvent(ID, Step.CAPTURE_PAYMENT, HOLD_CAPTURE, AMOUNT),
                            new PaymentCaptureRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                                    opLease(HOLD_CAPTURE, 1, 1, AT)));
        }

        @Test
        void once_captured_it_is_no_legacy_hold_the_checkout_stays_completed_and_its_money_is_refundable() {
            List<Object> capturing = concat(legacyCompleted(),
                    new PaymentOperationOrderedEvent(ID, Step.CAPTURE_PAYMENT, HOLD_CAPTURE, AMOUNT),
                    new PaymentCaptureRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                            opLease(HOLD_CAPTURE, 1, 1, AT)));
            assertThat(facts(capturing).state()).isEqualTo(CheckoutState.COMPLETED);
            assertThat(Workflow.operatorActions(facts(capturing))).isEmpty();
            given(capturing)
                    .when(record(new PaymentCaptureSucceededEvent(ID, HOLD_CAPTURE, token(1), "ch_1", AMOUNT),
                            AT.plusSeconds(1)))
                    .events(new PaymentCapturedEvent(ID, HOLD_CAPTURE, token(1), "ch_1", AMOUNT));
            List<Object> captured = concat(capturing, new PaymentCapturedEvent(ID, HOLD_CAPTURE, token(1), "ch_1",
                    AMOUNT));
            assertThat(facts(captured).state()).isEqualTo(CheckoutState.COMPLETED);
            assertThat(Workflow.legacyHold(facts(captured))).isFalse();
            assertThat(Workflow.operatorActions(facts(captured)))
                    .containsExactly(OperatorAction.REFUND, OperatorAction.CANCEL);
            given(captured).when(new SettleHoldCommand(ID, false, null, AT.plusSeconds(2)))
                    .refusedWithMessage("This checkout holds no legacy authorization: it was captured or released "
                            + "already");
            given(captured).when(refund(PART, AT.plusSeconds(2)))
                    .events(new PaymentOperationOrderedEvent(ID, Step.REFUND_PAYMENT, REFUND_1, PART),
                            refundRequested(REFUND_1, PART, 1, 1, AT.plusSeconds(2)));
        }

        @Test
        void an_unknown_capture_is_asked_again_under_its_own_operation_id() {
            Instant at = AT.plusSeconds(1);
            Instant retryAt = at.plus(POLICY.retryDelay(1));
            given(legacyCompleted(), new PaymentOperationOrderedEvent(ID, Step.CAPTURE_PAYMENT, HOLD_CAPTURE, AMOUNT),
                    new PaymentCaptureRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                            opLease(HOLD_CAPTURE, 1, 1, AT)))
                    .when(record(new io.durablecheckout.api.activity.PaymentCaptureOutcomeUnknownEvent(ID, HOLD_CAPTURE,
                            token(1), "read timed out"), at))
                    .events(new ActivityRetryScheduledEvent(ID, Step.CAPTURE_PAYMENT, HOLD_CAPTURE, 1, retryAt,
                            "capture outcome unknown: read timed out"))
                    .schedules(retryTimer(Step.CAPTURE_PAYMENT, 1, retryAt));
        }

        @Test
        void a_declined_capture_is_recorded_and_the_hold_can_still_be_released() {
            List<Object> capturing = concat(legacyCompleted(),
                    new PaymentOperationOrderedEvent(ID, Step.CAPTURE_PAYMENT, HOLD_CAPTURE, AMOUNT),
                    new PaymentCaptureRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                            opLease(HOLD_CAPTURE, 1, 1, AT)));
            given(capturing)
                    .when(record(new PaymentCaptureDeclinedEvent(ID, HOLD_CAPTURE, token(1), "hold expired"),
                            AT.plusSeconds(1)))
                    .events(new PaymentCaptureFailedEvent(ID, HOLD_CAPTURE, token(1), "hold expired"));
            List<Object> declined = concat(capturing, new PaymentCaptureFailedEvent(ID, HOLD_CAPTURE, token(1),
                    "hold expired"));
            assertThat(facts(declined).state()).isEqualTo(CheckoutState.COMPLETED);
            assertThat(Workflow.operatorActions(facts(declined))).containsExactly(OperatorAction.CAPTURE_HOLD,
                    OperatorAction.RELEASE_HOLD, OperatorAction.CANCEL);
        }

        @Test
        void is_released_by_a_void_under_an_operation_id_of_its_own_and_then_nothing_is_voided_or_refunded() {
            given(legacyCompleted())
                    .when(new SettleHoldCommand(ID, false, null, AT))
                    .events(new PaymentOperationOrderedEvent(ID, Step.VOID_PAYMENT, HOLD_RELEASE, AMOUNT),
                            new PaymentVoidRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                                    opLease(HOLD_RELEASE, 1, 1, AT)));
            List<Object> releasing = concat(legacyCompleted(),
                    new PaymentOperationOrderedEvent(ID, Step.VOID_PAYMENT, HOLD_RELEASE, AMOUNT),
                    new PaymentVoidRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                            opLease(HOLD_RELEASE, 1, 1, AT)));
            given(releasing)
                    .when(record(new PaymentVoidSucceededEvent(ID, HOLD_RELEASE, token(1), "void_1"),
                            AT.plusSeconds(1)))
                    .events(new PaymentVoidedEvent(ID, HOLD_RELEASE, token(1), "void_1"));
            List<Object> released = concat(releasing, new PaymentVoidedEvent(ID, HOLD_RELEASE, token(1), "void_1"));
            assertThat(facts(released).state()).isEqualTo(CheckoutState.COMPLETED);
            assertThat(Workflow.legacyHold(facts(released))).isFalse();
            assertThat(Workflow.operatorActions(facts(released))).containsExactly(OperatorAction.CANCEL);
            given(released)
                    .when(operatorCancel(AT.plusSeconds(60)))
                    .events(new CheckoutCancellationRequestedEvent(ID, CancellationReason.OPERATOR_REQUEST,
                                    "goods returned"),
                            new StockReleaseRequestedEvent(ID, TENANT, op(Step.RESERVE_STOCK),
                                    lease(Step.RELEASE_STOCK, 1, AT.plusSeconds(60))));
        }

        @Test
        void a_legacy_checkout_without_operator_action_still_refunds_on_cancel_as_rules_2_did() {
            given(legacyCompleted())
                    .when(operatorCancel(AT))
                    .events(new CheckoutCancellationRequestedEvent(ID, CancellationReason.OPERATOR_REQUEST,
                                    "goods returned"),
                            new PaymentRefundRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                                    lease(Step.REFUND_PAYMENT, 1, AT)));
        }

        @Test
        void a_checkout_under_today_s_rules_holds_no_legacy_hold() {
            assertThat(Workflow.legacyHold(facts(awaitingCaptureHistory()))).isFalse(); // rules 3, nothing captured
            given(completedHistory())
                    .when(new SettleHoldCommand(ID, true, null, AT))
                    .refusedWithMessage("This checkout holds no legacy authorization: it was created under rules "
                            + "version 3, whose capture step settles its payment");
            given(confirmedHistoryUnderRules2())
                    .when(new SettleHoldCommand(ID, true, null, AT))
                    .refused("an operator's payment operation is made on a completed checkout");
        }
    }

    @Nested
    class Offered {

        @Test
        void a_captured_checkout_offers_a_refund_and_a_legacy_one_its_hold_s_capture_or_release() {
            assertThat(Workflow.operatorActions(facts(completedHistory())))
                    .containsExactly(OperatorAction.REFUND, OperatorAction.CANCEL);
            assertThat(Workflow.operatorActions(facts(legacyCompleted())))
                    .containsExactly(OperatorAction.CAPTURE_HOLD, OperatorAction.RELEASE_HOLD, OperatorAction.CANCEL);
            assertThat(Workflow.operatorActions(facts(partlyRefunded())))
                    .containsExactly(OperatorAction.REFUND, OperatorAction.CANCEL);
        }

        @Test
        void nothing_while_an_operation_runs() {
            assertThat(Workflow.operatorActions(facts(refundInFlight()))).isEmpty();
        }

        @Test
        void the_state_an_operation_s_request_and_success_leave_is_the_one_before() {
            assertThat(CheckoutFacts.stateAfter(CheckoutState.COMPLETED, refundRequested(REFUND_1, PART, 1, 1, AT)))
                    .isEqualTo(CheckoutState.COMPLETED);
            assertThat(CheckoutFacts.stateAfter(CheckoutState.COMPLETED, new PaymentRefundRequestedEvent(ID, TENANT,
                    op(Step.AUTHORIZE_PAYMENT), PART, lease(Step.REFUND_PAYMENT, 1, AT))))
                    .isEqualTo(CheckoutState.REFUND_REQUESTED);
            assertThat(CheckoutFacts.stateAfter(CheckoutState.COMPLETED, new PaymentRefundedEvent(ID, REFUND_1,
                    token(1), "re"))).isEqualTo(CheckoutState.COMPLETED);
            assertThat(CheckoutFacts.stateAfter(CheckoutState.REFUND_REQUESTED, new PaymentRefundedEvent(ID,
                    op(Step.REFUND_PAYMENT), token(1), "re"))).isEqualTo(CheckoutState.REFUND_CONFIRMED);
            assertThat(CheckoutFacts.stateAfter(CheckoutState.COMPLETED, new PaymentVoidedEvent(ID, HOLD_RELEASE,
                    token(1), "v"))).isEqualTo(CheckoutState.COMPLETED);
            assertThat(CheckoutFacts.stateAfter(CheckoutState.COMPLETED, new PaymentCapturedEvent(ID, HOLD_CAPTURE,
                    token(1), "c", AMOUNT))).isEqualTo(CheckoutState.COMPLETED);
            assertThat(CheckoutFacts.stateAfter(CheckoutState.COMPLETED, new PaymentVoidRequestedEvent(ID, TENANT,
                    op(Step.AUTHORIZE_PAYMENT), AMOUNT, lease(Step.VOID_PAYMENT, 1, AT))))
                    .isEqualTo(CheckoutState.VOID_PENDING);
        }
    }
}
