package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.StockReservationSucceededEvent;
import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.checkout.ActivityLeaseDeferredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.OperatorRetryRequestedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.checkout.StockReservedEvent;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Deadlines.LeaseExpiry;
import io.durablecheckout.orchestrator.checkout.Deadlines.RetryDue;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ID;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ITEMS;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.LEASE;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.PAYMENT_LEASE;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RESERVED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RETRY_INITIAL;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.T0;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.TENANT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.attemptFailed;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.authorizationRequested;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.authorizationSucceeded;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.concat;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.createdHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.lease;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.op;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.record;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.reservationRequested;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.start;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservationSucceeded;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.token;

/**
 * Leases and fencing: a lease that expires is granted again under the same operation id with the next token, only the
 * owner of the lease in force may report, failures back off and exhaust a budget, and an operator can retry.
 * The policy allows {@value CheckoutScenario#MAX_ATTEMPTS} attempts per operation.
 */
class CheckoutLeaseTest {

    private static final OperationId RESERVE = new OperationId("chk-0001/reserve-stock");

    private AggregateTestFixture<Checkout> fixture;

    @BeforeEach
    void setUp() {
        fixture = CheckoutScenario.fixture();
    }

    /** The reservation after its first lease expired: lease 2 is in force. */
    private static List<Object> reservationReleasedToASecondOwner() {
        return concat(createdHistory(),
                new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK, lease(Step.RESERVE_STOCK, 1, T0)),
                reservationRequested(2, T0.plus(LEASE)));
    }

    @Nested
    class Expiry {

        private RenewLeaseCommand claim(int token, Instant at) {
            return new RenewLeaseCommand(ID, new ActivityHeartbeatEvent(ID, Step.RESERVE_STOCK, RESERVE, token(token)),
                    at);
        }

        @Test
        void a_claimed_lease_that_runs_out_is_granted_again_under_the_same_operation_id_with_the_next_token() {
            Instant claimedAt = T0.plusSeconds(1);
            Instant expiredAt = claimedAt.plus(LEASE);
            fixture.givenCurrentTime(T0)
                    .andGivenCommands(start(), claim(1, claimedAt))
                    .whenThenTimeAdvancesTo(expiredAt)
                    .expectTriggeredDeadlinesWithName(Deadlines.LEASE_EXPIRED)
                    .expectEvents(
                            new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK,
                                    new Lease(RESERVE, 1, FencingToken.first(), expiredAt)),
                            new StockReservationRequestedEvent(ID, TENANT, ITEMS,
                                    new Lease(RESERVE, 2, new FencingToken(2), expiredAt.plus(LEASE))))
                    .expectScheduledDeadline(expiredAt.plus(LEASE), new LeaseExpiry(Step.RESERVE_STOCK, token(2)));
        }

        @Test
        void the_claim_starts_the_lease_even_when_it_does_not_move_the_expiry() {
            // picked up at once: the claim's own expiry (T0 + LEASE) is not later, but it is recorded as the claim
            fixture.givenCurrentTime(T0)
                    .andGivenCommands(start())
                    .when(claim(1, T0))
                    .expectEvents(new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK, lease(Step.RESERVE_STOCK, 1, T0)));
        }

        @Test
        void a_lease_nobody_has_claimed_is_deferred_not_expired_the_intent_still_waits_for_a_worker() {
            Instant dueAt = T0.plus(LEASE);
            Instant checkedAgain = dueAt.plus(LEASE); // its processor has not reached it (rules version 2)
            CheckoutScenario.fixture(false).givenCurrentTime(T0)
                    .andGivenCommands(start())
                    .whenThenTimeAdvancesTo(dueAt)
                    .expectEvents(new ActivityLeaseDeferredEvent(ID, Step.RESERVE_STOCK,
                            new Lease(RESERVE, 1, FencingToken.first(), checkedAgain)))
                    .expectScheduledDeadline(checkedAgain, new LeaseExpiry(Step.RESERVE_STOCK, token(1)));
        }

        @Test
        void a_worker_that_claims_after_a_deferral_gets_a_full_lease_from_its_claim() {
            Instant claimedAt = T0.plus(LEASE).plusSeconds(4);
            fixture.givenCurrentTime(T0)
                    .andGivenCommands(start())
                    .andGiven(new ActivityLeaseDeferredEvent(ID, Step.RESERVE_STOCK,
                            lease(Step.RESERVE_STOCK, 1, T0.plus(LEASE))))
                    .when(claim(1, claimedAt))
                    .expectEvents(new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK,
                            new Lease(RESERVE, 1, token(1), claimedAt.plus(LEASE))))
                    .expectScheduledDeadline(claimedAt.plus(LEASE), new LeaseExpiry(Step.RESERVE_STOCK, token(1)));
        }

        @Test
        void an_intent_its_processor_passed_that_nobody_claims_for_max_attempts_leases_is_presumed_lost_and_issued_again() {
            Instant passed = T0.plus(LEASE);
            Instant lost = passed.plus(LEASE.multipliedBy(CheckoutScenario.MAX_ATTEMPTS - 1));
            fixture.givenCurrentTime(T0)
                    .andGivenCommands(start())
                    .whenThenTimeAdvancesTo(lost)
                    .expectEvents(
                            new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK,
                                    new Lease(RESERVE, 1, FencingToken.first(), lost)),
                            new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK,
                                    new Lease(RESERVE, 1, FencingToken.first(), lost)),
                            reservationRequested(2, lost));
        }

        @Test
        void nothing_happens_before_the_lease_expires() {
            fixture.givenCurrentTime(T0)
                    .andGivenCommands(start())
                    .whenThenTimeAdvancesTo(T0.plus(LEASE).minusMillis(1))
                    .expectNoEvents();
        }

        @Test
        void a_result_cancels_the_expiry_of_its_lease() {
            fixture.givenCurrentTime(T0)
                    .andGivenCommands(start())
                    .when(record(stockReservationSucceeded(1), RESERVED_AT))
                    .expectNoScheduledDeadline(T0.plus(LEASE), new LeaseExpiry(Step.RESERVE_STOCK, token(1)))
                    .expectScheduledDeadline(RESERVED_AT.plus(PAYMENT_LEASE),
                            new LeaseExpiry(Step.AUTHORIZE_PAYMENT, token(1)));
        }

        @Test
        void once_the_result_is_in_the_old_expiry_time_passes_without_events() {
            fixture.givenCurrentTime(T0)
                    .andGivenCommands(start(), record(stockReservationSucceeded(1), RESERVED_AT),
                            record(authorizationSucceeded(1), RESERVED_AT.plusSeconds(1)))
                    .whenThenTimeAdvancesTo(T0.plus(LEASE))
                    .expectNoEvents();
        }

        @Test
        void claimed_leases_that_keep_expiring_exhaust_the_budget_and_send_the_checkout_to_manual_review() {
            // leases 1 and 2 expired; the owner of lease 3 claims it and then goes silent
            Instant third = T0.plus(LEASE.multipliedBy(2));
            Instant claimedAt = third.plusSeconds(1);
            fixture.givenCurrentTime(third)
                    .andGiven(concat(createdHistory(),
                            new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK, lease(Step.RESERVE_STOCK, 1, T0)),
                            reservationRequested(2, T0.plus(LEASE)),
                            new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK,
                                    lease(Step.RESERVE_STOCK, 2, T0.plus(LEASE))),
                            reservationRequested(3, third)))
                    .andGivenCommands(claim(3, claimedAt))
                    .whenThenTimeAdvancesTo(claimedAt.plus(LEASE))
                    .expectEvents(
                            new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK,
                                    new Lease(RESERVE, 3, token(3), claimedAt.plus(LEASE))),
                            new ManualReviewRequiredEvent(ID, Step.RESERVE_STOCK,
                                    "reserve-stock: no result within 3 leases",
                                    "operation chk-0001/reserve-stock, last attempt 3 expired at 2026-01-01T10:00:31Z"))
                    .expectNoScheduledDeadlines();
        }
    }

    @Nested
    class Fencing {

        @Test
        void a_result_carrying_the_token_of_an_expired_lease_is_rejected_and_changes_nothing() {
            fixture.given(reservationReleasedToASecondOwner())
                    .when(record(stockReservationSucceeded(1), T0.plus(LEASE).plusSeconds(1)))
                    .expectSuccessfulHandlerExecution()
                    .expectEvents(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, RESERVE, token(1), token(2)));
        }

        @Test
        void the_stale_owner_stays_fenced_out_after_the_new_owner_reported() {
            fixture.given(concat(reservationReleasedToASecondOwner(),
                            new StockReservedEvent(ID, RESERVE, token(2)),
                            authorizationRequested(1, T0.plus(LEASE).plusSeconds(1))))
                    .when(record(stockReservationSucceeded(1), T0.plus(LEASE).plusSeconds(2)))
                    .expectEvents(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, RESERVE, token(1), token(2)));
        }

        @Test
        void the_owner_of_the_lease_in_force_is_heard() {
            Instant reportedAt = T0.plus(LEASE).plusSeconds(1);
            fixture.given(reservationReleasedToASecondOwner())
                    .when(record(stockReservationSucceeded(2), reportedAt))
                    .expectEvents(
                            new StockReservedEvent(ID, RESERVE, token(2)),
                            authorizationRequested(1, reportedAt));
        }

        @Test
        void a_duplicate_of_an_applied_result_is_acknowledged_without_events() {
            fixture.given(stockReservedHistory())
                    .when(record(stockReservationSucceeded(1), RESERVED_AT.plusSeconds(5)))
                    .expectSuccessfulHandlerExecution()
                    .expectNoEvents();
        }

        @Test
        void a_forged_newer_token_is_rejected() {
            fixture.given(createdHistory())
                    .when(record(stockReservationSucceeded(2), RESERVED_AT))
                    .expectSuccessfulHandlerExecution()
                    .expectEvents(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, RESERVE, token(2), token(1)));
        }

        @Test
        void a_result_under_another_operation_id_is_rejected() {
            OperationId foreign = new OperationId("chk-0002/reserve-stock");
            fixture.given(createdHistory())
                    .when(record(new StockReservationSucceededEvent(ID, foreign,
                            token(1)), RESERVED_AT))
                    .expectEvents(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, foreign, token(1), token(1)));
        }

        @Test
        void a_result_for_a_step_never_granted_is_rejected() {
            fixture.given(createdHistory())
                    .when(record(authorizationSucceeded(1), RESERVED_AT))
                    .expectEvents(new ActivityResultRejectedEvent(ID, Step.AUTHORIZE_PAYMENT, op(Step.AUTHORIZE_PAYMENT),
                            token(1), null));
        }
    }

    @Nested
    class RetryAfterFailure {

        @Test
        void a_failed_attempt_schedules_a_retry_after_the_initial_backoff() {
            fixture.given(createdHistory())
                    .when(record(attemptFailed(Step.RESERVE_STOCK, 1), RESERVED_AT))
                    .expectEvents(new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 1,
                            RESERVED_AT.plus(RETRY_INITIAL), "connection reset"))
                    .expectScheduledDeadlineWithName(RESERVED_AT.plus(RETRY_INITIAL), Deadlines.RETRY_DUE)
                    .expectScheduledDeadline(RESERVED_AT.plus(RETRY_INITIAL), new RetryDue(Step.RESERVE_STOCK, token(1)));
        }

        @Test
        void a_failed_attempt_cancels_the_expiry_of_its_lease() {
            fixture.givenCurrentTime(T0)
                    .andGivenCommands(start())
                    .when(record(attemptFailed(Step.RESERVE_STOCK, 1), RESERVED_AT))
                    .expectNoScheduledDeadlineWithName(T0.plus(LEASE), Deadlines.LEASE_EXPIRED);
        }

        @Test
        void the_retry_deadline_grants_a_new_lease_under_the_same_operation_id_with_the_next_token() {
            Instant retryAt = RESERVED_AT.plus(RETRY_INITIAL);
            fixture.givenCurrentTime(T0)
                    .andGivenCommands(start(), record(attemptFailed(Step.RESERVE_STOCK, 1), RESERVED_AT))
                    .whenThenTimeAdvancesTo(retryAt)
                    .expectTriggeredDeadlinesWithName(Deadlines.RETRY_DUE)
                    .expectEvents(new StockReservationRequestedEvent(ID, TENANT, ITEMS,
                            new Lease(RESERVE, 2, new FencingToken(2), retryAt.plus(LEASE))))
                    .expectScheduledDeadline(retryAt.plus(LEASE), new LeaseExpiry(Step.RESERVE_STOCK, token(2)));
        }

        @Test
        void the_second_failure_doubles_the_backoff() {
            Instant secondLeaseAt = RESERVED_AT.plus(RETRY_INITIAL);
            Instant secondFailureAt = secondLeaseAt.plusSeconds(1);
            fixture.given(concat(createdHistory(),
                            new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 1, secondLeaseAt,
                                    "connection reset"),
                            reservationRequested(2, secondLeaseAt)))
                    .when(record(attemptFailed(Step.RESERVE_STOCK, 2), secondFailureAt))
                    .expectEvents(new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 2,
                            secondFailureAt.plus(RETRY_INITIAL.multipliedBy(2)), "connection reset"))
                    .expectScheduledDeadline(secondFailureAt.plus(RETRY_INITIAL.multipliedBy(2)),
                            new RetryDue(Step.RESERVE_STOCK, token(2)));
        }

        @Test
        void repeated_failures_exhaust_the_budget_and_send_the_checkout_to_manual_review() {
            fixture.given(twoFailedAttemptsThenAThirdLease())
                    .when(record(attemptFailed(Step.RESERVE_STOCK, 3), T0.plusSeconds(9)))
                    .expectEvents(new ManualReviewRequiredEvent(ID, Step.RESERVE_STOCK, "reserve-stock failed 3 times",
                            "operation chk-0001/reserve-stock; last failure: connection reset"))
                    .expectNoScheduledDeadlines();
        }

        @Test
        void a_duplicate_failure_report_schedules_no_second_retry() {
            fixture.given(concat(createdHistory(),
                            new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 1,
                                    RESERVED_AT.plus(RETRY_INITIAL), "connection reset")))
                    .when(record(attemptFailed(Step.RESERVE_STOCK, 1), RESERVED_AT.plusMillis(10)))
                    .expectNoEvents()
                    .expectNoScheduledDeadlines();
        }
    }

    @Nested
    class OperatorRetry {

        private final Instant retriedAt = T0.plusSeconds(60);

        @Test
        void an_operator_retry_grants_the_next_lease_of_the_blocked_step() {
            fixture.given(blockedOnReservation())
                    .when(new RetryActivityCommand(ID, null, retriedAt))
                    .expectEvents(
                            new OperatorRetryRequestedEvent(ID, Step.RESERVE_STOCK),
                            new StockReservationRequestedEvent(ID, TENANT, ITEMS,
                                    new Lease(RESERVE, 4, new FencingToken(4), retriedAt.plus(LEASE))))
                    .expectScheduledDeadline(retriedAt.plus(LEASE), new LeaseExpiry(Step.RESERVE_STOCK, token(4)));
        }

        @Test
        void an_operator_retry_starts_a_fresh_failure_budget() {
            Instant failedAt = retriedAt.plusSeconds(1);
            fixture.given(concat(blockedOnReservation(),
                            new OperatorRetryRequestedEvent(ID, Step.RESERVE_STOCK),
                            reservationRequested(4, retriedAt)))
                    .when(record(attemptFailed(Step.RESERVE_STOCK, 4), failedAt))
                    .expectEvents(new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 4,
                            failedAt.plus(RETRY_INITIAL), "connection reset"));
        }

        @Test
        void a_late_result_from_the_blocked_lease_after_an_operator_retry_is_rejected() {
            fixture.given(concat(blockedOnReservation(),
                            new OperatorRetryRequestedEvent(ID, Step.RESERVE_STOCK),
                            reservationRequested(4, retriedAt)))
                    .when(record(stockReservationSucceeded(3), retriedAt.plusSeconds(1)))
                    .expectEvents(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, RESERVE, token(3), token(4)));
        }
    }

    @Test
    void aLateResultFromTheCurrentOwnerSettlesAManualReviewInsteadOfBeingDropped() {
        Instant late = T0.plusSeconds(30);
        CheckoutScenario.fixture()
                .given(blockedOnReservation())
                .when(record(stockReservationSucceeded(3), late))
                .expectEvents(new StockReservedEvent(ID, RESERVE, token(3)), authorizationRequested(1, late));
    }

    @Test
    void aLateResultWithAnOlderTokenDuringManualReviewIsStillRejected() {
        CheckoutScenario.fixture()
                .given(blockedOnReservation())
                .when(record(stockReservationSucceeded(2), T0.plusSeconds(30)))
                .expectEvents(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, RESERVE, token(2), token(3)));
    }

    @Nested
    class Renewal {

        @Test
        void the_current_owner_extends_its_lease_and_the_deadline_moves() {
            Instant beatAt = T0.plusSeconds(8);
            Lease renewed = new Lease(RESERVE, 1, token(1), beatAt.plus(LEASE));
            CheckoutScenario.fixture()
                    .given(createdHistory())
                    .when(new RenewLeaseCommand(ID, new ActivityHeartbeatEvent(ID, Step.RESERVE_STOCK, RESERVE, token(1)),
                            beatAt))
                    .expectEvents(new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK, renewed))
                    .expectScheduledDeadline(beatAt.plus(LEASE), new LeaseExpiry(Step.RESERVE_STOCK, token(1)));
        }

        @Test
        void a_stale_owner_cannot_renew_and_the_attempt_is_recorded() {
            Instant expiredAt = T0.plus(LEASE);
            CheckoutScenario.fixture()
                    .given(concat(createdHistory(),
                            new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK, lease(Step.RESERVE_STOCK, 1, T0)),
                            reservationRequested(2, expiredAt)))
                    .when(new RenewLeaseCommand(ID, new ActivityHeartbeatEvent(ID, Step.RESERVE_STOCK, RESERVE, token(1)),
                            expiredAt.plusSeconds(1)))
                    .expectEvents(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, RESERVE, token(1), token(2)));
        }

        @Test
        void the_owners_heartbeat_overtaken_by_its_own_result_changes_nothing_and_counts_as_no_stale_owner() {
            CheckoutScenario.fixture()
                    .given(concat(createdHistory(), new StockReservedEvent(ID, RESERVE, token(1)),
                            authorizationRequested(1, RESERVED_AT)))
                    .when(new RenewLeaseCommand(ID, new ActivityHeartbeatEvent(ID, Step.RESERVE_STOCK, RESERVE, token(1)),
                            RESERVED_AT.plusSeconds(1)))
                    .expectSuccessfulHandlerExecution()
                    .expectNoEvents();
        }
    }

    @Test
    void theFailureThatCausedAManualReviewDeliveredAgainChangesNothing() {
        // at-least-once delivery (e.g. through Axon Server) must not send a reviewed checkout round again
        CheckoutScenario.fixture()
                .given(blockedOnReservation())
                .when(record(attemptFailed(Step.RESERVE_STOCK, 3), T0.plusSeconds(30)))
                .expectSuccessfulHandlerExecution()
                .expectNoEvents();
    }

    /** Attempts 1 and 2 failed and were retried; lease 3 is in force. */
    private static List<Object> twoFailedAttemptsThenAThirdLease() {
        return concat(createdHistory(),
                new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 1, T0.plusSeconds(2), "connection reset"),
                reservationRequested(2, T0.plusSeconds(2)),
                new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 2, T0.plusSeconds(5), "connection reset"),
                reservationRequested(3, T0.plusSeconds(5)));
    }

    /** The third attempt failed too: manual review, blocked on the reservation. */
    private static List<Object> blockedOnReservation() {
        return concat(twoFailedAttemptsThenAThirdLease(),
                new ManualReviewRequiredEvent(ID, Step.RESERVE_STOCK, "reserve-stock failed 3 times",
                        "operation chk-0001/reserve-stock; last failure: connection reset"));
    }
}
