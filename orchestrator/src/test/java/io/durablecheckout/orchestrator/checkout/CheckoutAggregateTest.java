package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.PaymentAuthorizationDeclinedEvent;
import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.activity.StockReleaseSucceededEvent;
import io.durablecheckout.api.activity.StockReservationRejectedEvent;
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
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Deadlines.LeaseExpiry;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.hamcrest.CustomTypeSafeMatcher;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AMOUNT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AUTHORIZED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ID;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ITEMS;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.LEASE;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.PAYMENT_LEASE;
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
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The forward path of a checkout (created → stock_reserved → confirmed → completed), the ways it ends early
 * (out of stock, unknown SKU, declined), and the commands the rules refuse.
 * Leases and fencing: {@link CheckoutLeaseTest}; unknown payment outcomes: {@link CheckoutReconciliationTest};
 * cancellation: {@link CheckoutCompensationTest}.
 */
class CheckoutAggregateTest {

    private AggregateTestFixture<Checkout> fixture;

    @BeforeEach
    void setUp() {
        fixture = CheckoutScenario.fixture();
    }

    @Nested
    class Start {

        @Test
        void start_records_the_checkout_and_grants_the_first_reservation_lease() {
            fixture.givenNoPriorActivity()
                    .when(start())
                    .expectSuccessfulHandlerExecution()
                    .expectEvents(created(),
                            new StockReservationRequestedEvent(ID, TENANT, ITEMS, new Lease(
                                    new OperationId("chk-0001/reserve-stock"), 1, FencingToken.first(),
                                    T0.plus(LEASE))));
        }

        @Test
        void start_schedules_the_expiry_of_the_reservation_lease() {
            fixture.givenNoPriorActivity()
                    .when(start())
                    .expectScheduledDeadlineWithName(T0.plus(LEASE), Deadlines.LEASE_EXPIRED)
                    .expectScheduledDeadline(T0.plus(LEASE), new LeaseExpiry(Step.RESERVE_STOCK, FencingToken.first()));
        }

        @Test
        void the_intent_carries_the_handle_of_its_lease_deadline_in_metadata() {
            fixture.givenNoPriorActivity()
                    .when(start())
                    .expectEventsMatching(new CustomTypeSafeMatcher<List<EventMessage<?>>>(
                            "a created event, then an intent with a leaseDeadlineId") {
                        @Override
                        protected boolean matchesSafely(List<EventMessage<?>> events) {
                            return events.size() == 2
                                    && !events.get(0).getMetaData().containsKey(Deadlines.LEASE_DEADLINE_ID)
                                    && events.get(1).getMetaData().get(Deadlines.LEASE_DEADLINE_ID) instanceof String id
                                    && !id.isBlank();
                        }
                    });
        }

        @Test
        void start_without_line_items_is_refused() {
            fixture.givenNoPriorActivity()
                    .when(start(List.of(), AMOUNT))
                    .expectException(IllegalCheckoutTransitionException.class)
                    .expectNoEvents();
        }

        @Test
        void start_with_a_zero_amount_is_refused() {
            fixture.givenNoPriorActivity()
                    .when(start(ITEMS, new Money(0, "EUR")))
                    .expectException(IllegalCheckoutTransitionException.class)
                    .expectNoEvents();
        }

        @Test
        void start_with_a_negative_amount_is_refused() {
            fixture.givenNoPriorActivity()
                    .when(start(ITEMS, new Money(-1, "EUR")))
                    .expectException(IllegalCheckoutTransitionException.class)
                    .expectNoEvents();
        }
    }

    @Nested
    class ForwardPath {

        @Test
        void stock_reserved_grants_the_payment_authorization_lease() {
            fixture.given(createdHistory())
                    .when(record(stockReservationSucceeded(1), RESERVED_AT))
                    .expectEvents(
                            new StockReservedEvent(ID, op(Step.RESERVE_STOCK), token(1)),
                            authorizationRequested(1, RESERVED_AT))
                    .expectScheduledDeadline(RESERVED_AT.plus(PAYMENT_LEASE),
                            new LeaseExpiry(Step.AUTHORIZE_PAYMENT, token(1)));
        }

        @Test
        void the_authorization_lease_names_the_authorize_payment_operation() {
            fixture.given(createdHistory())
                    .when(record(stockReservationSucceeded(1), RESERVED_AT))
                    .expectEvents(
                            new StockReservedEvent(ID, op(Step.RESERVE_STOCK), token(1)),
                            new PaymentAuthorizationRequestedEvent(ID, TENANT, AMOUNT,
                                    CheckoutScenario.PAYMENT_TOKEN, new Lease(new OperationId("chk-0001/authorize-payment"),
                                    1, FencingToken.first(), RESERVED_AT.plus(PAYMENT_LEASE))));
        }

        @Test
        void authorized_confirms_the_checkout_and_requests_the_receipt() {
            fixture.given(stockReservedHistory())
                    .when(record(authorizationSucceeded(1), AUTHORIZED_AT))
                    .expectEvents(
                            new PaymentAuthorizedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), PROVIDER_REF),
                            new CheckoutConfirmedEvent(ID),
                            receiptRequested(1, AUTHORIZED_AT))
                    .expectScheduledDeadline(AUTHORIZED_AT.plus(LEASE), new LeaseExpiry(Step.SEND_RECEIPT, token(1)));
        }

        @Test
        void receipt_sent_completes_the_checkout() {
            fixture.given(confirmedHistory())
                    .when(record(receiptDelivered(1), RECEIPT_AT))
                    .expectEvents(
                            new ReceiptSentEvent(ID, op(Step.SEND_RECEIPT), token(1)),
                            new CheckoutCompletedEvent(ID))
                    .expectNoScheduledDeadlines();
        }

        /** The shell cancels a renewed lease's timer, and a deferred one's, through the handle its event carries. */
        @Test
        void a_result_cancels_the_timer_of_a_renewed_lease() {
            fixture.givenCurrentTime(T0)
                    .andGivenCommands(start(), new io.durablecheckout.api.command.RenewLeaseCommand(ID,
                            new io.durablecheckout.api.activity.ActivityHeartbeatEvent(ID, Step.RESERVE_STOCK,
                                    op(Step.RESERVE_STOCK), token(1)), T0.plusSeconds(5)))
                    .when(record(stockReservationSucceeded(1), T0.plusSeconds(6)))
                    .expectNoScheduledDeadline(T0.plusSeconds(5).plus(LEASE), new LeaseExpiry(Step.RESERVE_STOCK, token(1)))
                    .expectNoScheduledDeadline(T0.plus(LEASE), new LeaseExpiry(Step.RESERVE_STOCK, token(1)));
        }

        /** A deferral moves the lease: its event names the timer whose handle the shell keeps. */
        @Test
        void a_deferred_lease_event_names_its_timer() {
            Lease waiting = new Lease(op(Step.RESERVE_STOCK), 1, token(1), T0.plusSeconds(40));
            assertThat(Decision.Timer.ofLease(new io.durablecheckout.api.checkout.ActivityLeaseDeferredEvent(ID,
                    Step.RESERVE_STOCK, waiting)))
                    .isEqualTo(new Decision.Timer(Deadlines.LEASE_EXPIRED, Step.RESERVE_STOCK, token(1), 0,
                            T0.plusSeconds(40)));
            assertThat(Decision.Timer.ofLease(new CheckoutCompletedEvent(ID))).isNull();
        }

        @Test
        void a_completed_checkout_leaves_no_deadline_behind() {
            fixture.givenCurrentTime(T0)
                    .andGivenCommands(
                            start(),
                            record(stockReservationSucceeded(1), RESERVED_AT),
                            record(authorizationSucceeded(1), AUTHORIZED_AT))
                    .when(record(receiptDelivered(1), RECEIPT_AT))
                    .expectEvents(
                            new ReceiptSentEvent(ID, op(Step.SEND_RECEIPT), token(1)),
                            new CheckoutCompletedEvent(ID))
                    .expectNoScheduledDeadlines();
        }
    }

    @Nested
    class EndsEarly {

        @Test
        void out_of_stock_cancels_with_the_reason() {
            fixture.given(createdHistory())
                    .when(record(new StockReservationRejectedEvent(ID, op(Step.RESERVE_STOCK), token(1),
                            CancellationReason.OUT_OF_STOCK, "SKU-RED-MUG: 0 of 2 available"), RESERVED_AT))
                    .expectEvents(new CheckoutCancelledEvent(ID, CancellationReason.OUT_OF_STOCK,
                            "SKU-RED-MUG: 0 of 2 available"));
        }

        @Test
        void unknown_sku_cancels_with_the_reason() {
            fixture.given(createdHistory())
                    .when(record(new StockReservationRejectedEvent(ID, op(Step.RESERVE_STOCK), token(1),
                            CancellationReason.UNKNOWN_SKU, "SKU-RED-MUG"), RESERVED_AT))
                    .expectEvents(new CheckoutCancelledEvent(ID, CancellationReason.UNKNOWN_SKU, "SKU-RED-MUG"));
        }

        @Test
        void declined_payment_releases_the_stock() {
            fixture.given(stockReservedHistory())
                    .when(record(new PaymentAuthorizationDeclinedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1),
                            "insufficient funds"), AUTHORIZED_AT))
                    .expectEvents(
                            new PaymentDeclinedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), "insufficient funds"),
                            new StockReleaseRequestedEvent(ID, TENANT, new OperationId("chk-0001/reserve-stock"),
                                    lease(Step.RELEASE_STOCK, 1, AUTHORIZED_AT)))
                    .expectScheduledDeadline(AUTHORIZED_AT.plus(LEASE), new LeaseExpiry(Step.RELEASE_STOCK, token(1)));
        }

        @Test
        void stock_released_after_a_decline_cancels_as_payment_declined() {
            fixture.given(concat(stockReservedHistory(),
                            new PaymentDeclinedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), "insufficient funds"),
                            new StockReleaseRequestedEvent(ID, TENANT, op(Step.RESERVE_STOCK),
                                    lease(Step.RELEASE_STOCK, 1, AUTHORIZED_AT))))
                    .when(record(new StockReleaseSucceededEvent(ID, op(Step.RELEASE_STOCK), token(1)), RECEIPT_AT))
                    .expectEvents(
                            new StockReleasedEvent(ID, op(Step.RELEASE_STOCK), token(1)),
                            new CheckoutCancelledEvent(ID, CancellationReason.PAYMENT_DECLINED, "insufficient funds"));
        }

        @Test
        void a_resource_refusing_a_stale_owner_needs_no_decision() {
            fixture.given(createdHistory())
                    .when(record(new StaleOwnerRejectedEvent(ID, Step.RESERVE_STOCK, op(Step.RESERVE_STOCK), token(1),
                            token(2), "inventory"), RESERVED_AT))
                    .expectSuccessfulHandlerExecution()
                    .expectNoEvents();
        }
    }

    @Nested
    class IllegalTransitions {

        private final ResolveManualReviewCommand resolveAuthorized = new ResolveManualReviewCommand(ID,
                ManualResolution.AUTHORIZED, PROVIDER_REF, "seen in the provider dashboard", null, RECEIPT_AT);

        @Test
        void resolving_a_checkout_that_is_not_in_manual_review_is_refused() {
            fixture.given(stockReservedHistory())
                    .when(resolveAuthorized)
                    .expectException(IllegalCheckoutTransitionException.class)
                    .expectNoEvents();
        }

        @Test
        void resolving_as_authorized_without_the_provider_reference_is_refused() {
            fixture.given(concat(stockReservedHistory(), new ManualReviewRequiredEvent(ID, Step.AUTHORIZE_PAYMENT,
                            "authorize-payment failed 3 times", "operation chk-0001/authorize-payment")))
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, " ", "looks fine", null,
                            RECEIPT_AT))
                    .expectException(IllegalCheckoutTransitionException.class)
                    .expectNoEvents();
        }

        @Test
        void resolving_a_review_that_is_not_about_a_payment_outcome_is_refused() {
            fixture.given(concat(createdHistory(), new ManualReviewRequiredEvent(ID, Step.RESERVE_STOCK,
                            "reserve-stock failed 3 times", "operation chk-0001/reserve-stock")))
                    .when(resolveAuthorized)
                    .expectException(IllegalCheckoutTransitionException.class)
                    .expectNoEvents();
        }

        @Test
        void retrying_a_checkout_that_is_not_in_manual_review_is_refused() {
            fixture.given(createdHistory())
                    .when(new RetryActivityCommand(ID, null, RESERVED_AT))
                    .expectException(IllegalCheckoutTransitionException.class)
                    .expectNoEvents();
        }

        @Test
        void the_refusal_names_the_rule_and_the_state() {
            fixture.given(confirmedHistory())
                    .when(new RetryActivityCommand(ID, null, RECEIPT_AT))
                    .expectException(IllegalCheckoutTransitionException.class)
                    .expectExceptionMessage("Checkout is confirmed, not manual_review");
        }

        @Test
        void retrying_a_completed_checkout_is_refused() {
            fixture.given(completedHistory())
                    .when(new RetryActivityCommand(ID, null, RECEIPT_AT))
                    .expectException(IllegalCheckoutTransitionException.class)
                    .expectNoEvents();
        }
    }

    @Test
    void the_scenario_lease_helper_matches_the_policy() {
        // Guards the helper every expected intent in these tests is built with.
        assertThat(lease(Step.RESERVE_STOCK, 2, T0))
                .isEqualTo(new Lease(new OperationId("chk-0001/reserve-stock"), 2, new FencingToken(2), T0.plus(LEASE)));
        assertThat(lease(Step.AUTHORIZE_PAYMENT, 1, T0).expiresAt()).isEqualTo(T0.plus(PAYMENT_LEASE));
        assertThat(reservationRequested(1, T0).lease().operationId().value()).isEqualTo(ID + "/reserve-stock");
    }
}
