package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationDeclinedEvent;
import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.activity.StockReleaseSucceededEvent;
import io.durablecheckout.api.activity.StockReservationRejectedEvent;
import io.durablecheckout.api.checkout.ActivityLeaseDeferredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentDeclinedEvent;
import io.durablecheckout.api.checkout.ReceiptSentEvent;
import io.durablecheckout.api.checkout.StockReleaseRequestedEvent;
import io.durablecheckout.api.checkout.StockReleasedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.checkout.StockReservedEvent;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.holdTimer;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.captureRequested;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.captureSucceeded;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.capturePendingHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.CAPTURED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.CAPTURE_REF;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.underRules2;
import io.durablecheckout.api.checkout.PaymentCapturedEvent;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AMOUNT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AUTHORIZED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ID;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.deferredConfirmedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.confirmedHistoryUnderRules2;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.confirmed;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ITEMS;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.LEASE;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.PAYMENT_LEASE;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.POLICY;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.PROVIDER_REF;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RECEIPT_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RESERVED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.T0;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.TENANT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.authorizationRequested;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.authorizationSucceeded;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.completedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.concat;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.confirmedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.created;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.createdHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.lease;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.op;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.receiptDelivered;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.receiptRequested;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.record;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.reservationRequested;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.start;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservationSucceeded;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.token;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.given;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.leaseTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.leaseTimerDue;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.started;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.whenStarting;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The forward path of a checkout (created → stock_reserved → confirmed → completed), the ways it ends early
 * (out of stock, unknown SKU, declined), and the commands the rules refuse: {@link CheckoutDecider}'s decisions.
 * Leases and fencing: {@link CheckoutDeciderLeaseTest}; unknown payment outcomes:
 * {@link CheckoutDeciderReconciliationTest}; cancellation: {@link CheckoutDeciderCompensationTest}; what only the
 * Axon shell does: {@link CheckoutShellTest}.
 */
class CheckoutDeciderTest {

    @Nested
    class Start {

        @Test
        void start_records_the_checkout_and_grants_the_first_reservation_lease_with_its_timer() {
            whenStarting(start(), POLICY)
                    .events(created(), new StockReservationRequestedEvent(ID, TENANT, ITEMS, new Lease(
                            new OperationId("chk-0001/reserve-stock"), 1, FencingToken.first(), T0.plus(LEASE))))
                    .schedules(new Decision.Timer(Deadlines.LEASE_EXPIRED, Step.RESERVE_STOCK, FencingToken.first(), 0,
                            T0.plus(LEASE)))
                    .cancelsNothing();
        }

        @Test
        void the_first_lease_timer_carries_the_lease_expiry_payload() {
            Decision decision = whenStarting(start(), POLICY).decision();
            assertThat(decision.schedule()).singleElement()
                    .extracting(Decision.Timer::payload)
                    .isEqualTo(new Deadlines.LeaseExpiry(Step.RESERVE_STOCK, FencingToken.first()));
        }

        @Test
        void start_without_line_items_is_refused() {
            whenStarting(start(List.of(), AMOUNT), POLICY).refused("a checkout has at least one line item");
        }

        @Test
        void start_with_a_zero_amount_is_refused() {
            whenStarting(start(ITEMS, new Money(0, "EUR")), POLICY).refused("the amount is positive");
        }

        @Test
        void start_with_a_negative_amount_is_refused() {
            whenStarting(start(ITEMS, new Money(-1, "EUR")), POLICY).refused("the amount is positive");
        }

        @Test
        void a_one_cent_checkout_is_started() {
            whenStarting(start(ITEMS, new Money(1, "EUR")), POLICY)
                    .schedules(leaseTimer(Step.RESERVE_STOCK, 1, T0));
        }
    }

    @Nested
    class ForwardPath {

        @Test
        void stock_reserved_grants_the_payment_authorization_lease() {
            given(createdHistory())
                    .when(record(stockReservationSucceeded(1), RESERVED_AT))
                    .events(new StockReservedEvent(ID, op(Step.RESERVE_STOCK), token(1)),
                            authorizationRequested(1, RESERVED_AT))
                    .cancels(leaseTimer(Step.RESERVE_STOCK, 1, T0))
                    .schedules(leaseTimerDue(Step.AUTHORIZE_PAYMENT, 1, RESERVED_AT.plus(PAYMENT_LEASE)));
        }

        @Test
        void the_authorization_lease_names_the_authorize_payment_operation() {
            given(createdHistory())
                    .when(record(stockReservationSucceeded(1), RESERVED_AT))
                    .events(new StockReservedEvent(ID, op(Step.RESERVE_STOCK), token(1)),
                            new PaymentAuthorizationRequestedEvent(ID, TENANT, AMOUNT, CheckoutScenario.PAYMENT_TOKEN,
                                    new Lease(new OperationId("chk-0001/authorize-payment"), 1, FencingToken.first(),
                                            RESERVED_AT.plus(PAYMENT_LEASE))));
        }

        @Test
        void authorized_confirms_the_checkout_and_captures_under_its_own_operation_id() {
            given(stockReservedHistory())
                    .when(record(authorizationSucceeded(1), AUTHORIZED_AT))
                    .events(new PaymentAuthorizedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), PROVIDER_REF),
                            confirmed(AUTHORIZED_AT),
                            captureRequested(1, AUTHORIZED_AT))
                    .cancels(leaseTimer(Step.AUTHORIZE_PAYMENT, 1, RESERVED_AT))
                    // captured at once: the hold's lapse could decide nothing, so it gets no deadline
                    .schedules(leaseTimerDue(Step.CAPTURE_PAYMENT, 1, AUTHORIZED_AT.plus(PAYMENT_LEASE)));
        }

        @Test
        void the_capture_requests_the_receipt_which_can_say_what_was_charged() {
            given(capturePendingHistory())
                    .when(record(captureSucceeded(1), CAPTURED_AT))
                    .events(new PaymentCapturedEvent(ID, op(Step.CAPTURE_PAYMENT), token(1), CAPTURE_REF, AMOUNT),
                            receiptRequested(1, CAPTURED_AT))
                    .cancels(leaseTimer(Step.CAPTURE_PAYMENT, 1, AUTHORIZED_AT))
                    .schedules(leaseTimerDue(Step.SEND_RECEIPT, 1, CAPTURED_AT.plus(LEASE)));
        }

        @Test
        void receipt_sent_completes_the_checkout() {
            given(confirmedHistory())
                    .when(record(receiptDelivered(1), RECEIPT_AT))
                    .events(new ReceiptSentEvent(ID, op(Step.SEND_RECEIPT), token(1)), new CheckoutCompletedEvent(ID))
                    .cancels(leaseTimer(Step.SEND_RECEIPT, 1, AUTHORIZED_AT))
                    .schedulesNothing();
        }

        @Test
        void under_rules_2_the_receipt_completed_the_checkout_without_a_capture() {
            given(confirmedHistoryUnderRules2())
                    .when(record(receiptDelivered(1), RECEIPT_AT))
                    .events(new ReceiptSentEvent(ID, op(Step.SEND_RECEIPT), token(1)), new CheckoutCompletedEvent(ID))
                    .cancels(leaseTimer(Step.SEND_RECEIPT, 1, AUTHORIZED_AT))
                    .schedulesNothing();
        }

        @Test
        void a_result_cancels_the_timer_of_the_renewed_lease_not_the_granted_one() {
            Instant beatAt = T0.plusSeconds(5);
            given(createdHistory(), new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK,
                            new Lease(op(Step.RESERVE_STOCK), 1, token(1), beatAt.plus(LEASE))))
                    .when(record(stockReservationSucceeded(1), T0.plusSeconds(6)))
                    .cancels(leaseTimerDue(Step.RESERVE_STOCK, 1, beatAt.plus(LEASE)));
        }

        @Test
        void a_result_cancels_the_timer_of_a_deferred_lease() {
            Instant deferredTo = T0.plusSeconds(40);
            given(createdHistory(), new ActivityLeaseDeferredEvent(ID, Step.RESERVE_STOCK,
                            new Lease(op(Step.RESERVE_STOCK), 1, token(1), deferredTo)))
                    .when(record(stockReservationSucceeded(1), T0.plusSeconds(41)))
                    .cancels(leaseTimerDue(Step.RESERVE_STOCK, 1, deferredTo));
        }

        /** A deferral moves the lease: its event names the timer whose handle the shell keeps. */
        @Test
        void a_deferred_lease_event_names_its_timer() {
            Lease waiting = new Lease(op(Step.RESERVE_STOCK), 1, token(1), T0.plusSeconds(40));
            assertThat(Decision.Timer.ofLease(new ActivityLeaseDeferredEvent(ID, Step.RESERVE_STOCK, waiting)))
                    .isEqualTo(new Decision.Timer(Deadlines.LEASE_EXPIRED, Step.RESERVE_STOCK, token(1), 0,
                            T0.plusSeconds(40)));
            assertThat(Decision.Timer.ofLease(new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK, waiting)))
                    .isEqualTo(leaseTimerDue(Step.RESERVE_STOCK, 1, T0.plusSeconds(40)));
            assertThat(Decision.Timer.ofLease(reservationRequested(2, T0)))
                    .isEqualTo(leaseTimer(Step.RESERVE_STOCK, 2, T0));
            assertThat(Decision.Timer.ofLease(new CheckoutCompletedEvent(ID))).isNull();
        }

        @Test
        void a_completed_checkout_leaves_no_timer_behind() {
            started()
                    .andDecided(record(stockReservationSucceeded(1), RESERVED_AT),
                            record(authorizationSucceeded(1), AUTHORIZED_AT),
                            record(captureSucceeded(1), CAPTURED_AT))
                    .when(record(receiptDelivered(1), RECEIPT_AT))
                    .events(new ReceiptSentEvent(ID, op(Step.SEND_RECEIPT), token(1)), new CheckoutCompletedEvent(ID))
                    .leavesNoTimers();
        }

        @Test
        void a_heartbeat_then_the_result_leaves_no_timer_behind() {
            started()
                    .andDecided(new RenewLeaseCommand(ID, new ActivityHeartbeatEvent(ID, Step.RESERVE_STOCK,
                            op(Step.RESERVE_STOCK), token(1)), T0.plusSeconds(5)))
                    .andDecided(record(stockReservationSucceeded(1), T0.plusSeconds(6)),
                            record(authorizationSucceeded(1), T0.plusSeconds(7)),
                            record(captureSucceeded(1), T0.plusSeconds(8)))
                    .when(record(receiptDelivered(1), T0.plusSeconds(9)))
                    .leavesNoTimers();
        }
    }

    @Nested
    class EndsEarly {

        @Test
        void out_of_stock_cancels_with_the_reason() {
            given(createdHistory())
                    .when(record(new StockReservationRejectedEvent(ID, op(Step.RESERVE_STOCK), token(1),
                            CancellationReason.OUT_OF_STOCK, "SKU-RED-MUG: 0 of 2 available"), RESERVED_AT))
                    .events(new CheckoutCancelledEvent(ID, CancellationReason.OUT_OF_STOCK,
                            "SKU-RED-MUG: 0 of 2 available"))
                    .cancels(leaseTimer(Step.RESERVE_STOCK, 1, T0))
                    .schedulesNothing();
        }

        @Test
        void unknown_sku_cancels_with_the_reason() {
            given(createdHistory())
                    .when(record(new StockReservationRejectedEvent(ID, op(Step.RESERVE_STOCK), token(1),
                            CancellationReason.UNKNOWN_SKU, "SKU-RED-MUG"), RESERVED_AT))
                    .events(new CheckoutCancelledEvent(ID, CancellationReason.UNKNOWN_SKU, "SKU-RED-MUG"));
        }

        @Test
        void declined_payment_releases_the_stock() {
            given(stockReservedHistory())
                    .when(record(new PaymentAuthorizationDeclinedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1),
                            "insufficient funds"), AUTHORIZED_AT))
                    .events(new PaymentDeclinedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), "insufficient funds"),
                            new StockReleaseRequestedEvent(ID, TENANT, new OperationId("chk-0001/reserve-stock"),
                                    lease(Step.RELEASE_STOCK, 1, AUTHORIZED_AT)))
                    .cancels(leaseTimer(Step.AUTHORIZE_PAYMENT, 1, RESERVED_AT))
                    .schedules(leaseTimerDue(Step.RELEASE_STOCK, 1, AUTHORIZED_AT.plus(LEASE)));
        }

        @Test
        void stock_released_after_a_decline_cancels_as_payment_declined() {
            given(stockReservedHistory(),
                    new PaymentDeclinedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), "insufficient funds"),
                    new StockReleaseRequestedEvent(ID, TENANT, op(Step.RESERVE_STOCK),
                            lease(Step.RELEASE_STOCK, 1, AUTHORIZED_AT)))
                    .when(record(new StockReleaseSucceededEvent(ID, op(Step.RELEASE_STOCK), token(1)), RECEIPT_AT))
                    .events(new StockReleasedEvent(ID, op(Step.RELEASE_STOCK), token(1)),
                            new CheckoutCancelledEvent(ID, CancellationReason.PAYMENT_DECLINED, "insufficient funds"))
                    .cancels(leaseTimer(Step.RELEASE_STOCK, 1, AUTHORIZED_AT))
                    .schedulesNothing();
        }

        @Test
        void a_resource_refusing_a_stale_owner_needs_no_decision() {
            given(createdHistory())
                    .when(record(new StaleOwnerRejectedEvent(ID, Step.RESERVE_STOCK, op(Step.RESERVE_STOCK), token(1),
                            token(2), "inventory"), RESERVED_AT))
                    .nothing();
        }
    }

    @Nested
    class IllegalTransitions {

        private final ResolveManualReviewCommand resolveAuthorized = new ResolveManualReviewCommand(ID,
                ManualResolution.AUTHORIZED, PROVIDER_REF, "seen in the provider dashboard", null, RECEIPT_AT);

        @Test
        void resolving_a_checkout_that_is_not_in_manual_review_is_refused() {
            given(stockReservedHistory())
                    .when(resolveAuthorized)
                    .refused("only a checkout in manual review or with a disputed payment can be resolved")
                    .refusedWithMessage("Checkout is stock_reserved, not manual_review");
        }

        @Test
        void resolving_as_authorized_without_the_provider_reference_is_refused() {
            given(stockReservedHistory(), new ManualReviewRequiredEvent(ID, Step.AUTHORIZE_PAYMENT,
                            "authorize-payment failed 3 times", "operation chk-0001/authorize-payment"))
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, " ", "looks fine", null,
                            RECEIPT_AT))
                    .refused("an authorization is resolved with the provider's reference");
        }

        @Test
        void resolving_a_review_that_is_not_about_a_payment_outcome_is_refused() {
            given(createdHistory(), new ManualReviewRequiredEvent(ID, Step.RESERVE_STOCK,
                            "reserve-stock failed 3 times", "operation chk-0001/reserve-stock"))
                    .when(resolveAuthorized)
                    .refused("a resolution decides a payment outcome")
                    .refusedWithMessage("This checkout is blocked on reserve-stock, not on a payment outcome: "
                            + "retry or cancel it");
        }

        @Test
        void retrying_a_checkout_that_is_not_in_manual_review_is_refused() {
            given(createdHistory())
                    .when(new RetryActivityCommand(ID, null, RESERVED_AT))
                    .refused("only a checkout in manual review is retried by an operator");
        }

        @Test
        void the_refusal_names_the_rule_and_the_state() {
            given(confirmedHistory())
                    .when(new RetryActivityCommand(ID, null, RECEIPT_AT))
                    .refusedWithMessage("Checkout is confirmed, not manual_review");
        }

        @Test
        void retrying_a_completed_checkout_is_refused() {
            given(completedHistory())
                    .when(new RetryActivityCommand(ID, null, RECEIPT_AT))
                    .refused("only a checkout in manual review is retried by an operator");
        }

        @Test
        void an_input_that_is_not_a_checkout_s_is_refused_as_an_argument() {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> CheckoutDecider.decide("a string",
                            CheckoutFacts.INITIAL, T0))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void the_view_names_what_a_pending_step_awaits() {
        assertThat(Workflow.awaited(Step.AUTHORIZE_PAYMENT)).isEqualTo("payment authorization");
        assertThat(Workflow.pendingState(Step.AUTHORIZE_PAYMENT)).isEqualTo(CheckoutState.STOCK_RESERVED);
    }

    @Test
    void the_scenario_lease_helper_matches_the_policy() {
        // Guards the helper every expected intent in these tests is built with.
        assertThat(lease(Step.RESERVE_STOCK, 2, T0))
                .isEqualTo(new Lease(new OperationId("chk-0001/reserve-stock"), 2, new FencingToken(2), T0.plus(LEASE)));
        assertThat(lease(Step.AUTHORIZE_PAYMENT, 1, T0).expiresAt()).isEqualTo(T0.plus(PAYMENT_LEASE));
        assertThat(reservationRequested(1, T0).lease().operationId().value()).isEqualTo(ID + "/reserve-stock");
        assertThat(concat(createdHistory(), new CheckoutCompletedEvent(ID))).hasSize(3);
    }
}
