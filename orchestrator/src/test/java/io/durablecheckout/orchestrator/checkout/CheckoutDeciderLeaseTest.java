package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.activity.StockReservationSucceededEvent;
import io.durablecheckout.api.checkout.ActivityLeaseDeferredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.OperatorRetryRequestedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.checkout.StockReservedEvent;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Deadlines.LeaseExpiry;
import io.durablecheckout.orchestrator.checkout.Deadlines.RetryDue;
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
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservationSucceeded;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.token;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.given;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.leaseTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.leaseTimerDue;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.retryTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.started;

/**
 * Leases and fencing, decided by {@link CheckoutDecider}: a lease that expires is granted again under the same
 * operation id with the next token, only the owner of the lease in force may report, failures back off and exhaust a
 * budget, and an operator can retry. The policy allows {@value CheckoutScenario#MAX_ATTEMPTS} attempts per operation.
 */
class CheckoutDeciderLeaseTest {

    private static final OperationId RESERVE = new OperationId("chk-0001/reserve-stock");

    private static RenewLeaseCommand claim(int token, Instant at) {
        return new RenewLeaseCommand(ID, new ActivityHeartbeatEvent(ID, Step.RESERVE_STOCK, RESERVE, token(token)), at);
    }

    /** The reservation after its first lease expired: lease 2 is in force. */
    private static List<Object> reservationReleasedToASecondOwner() {
        return concat(createdHistory(),
                new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK, lease(Step.RESERVE_STOCK, 1, T0)),
                reservationRequested(2, T0.plus(LEASE)));
    }

    @Nested
    class Expiry {

        @Test
        void a_claimed_lease_that_runs_out_is_granted_again_under_the_same_operation_id_with_the_next_token() {
            Instant claimedAt = T0.plusSeconds(1);
            Instant expiredAt = claimedAt.plus(LEASE);
            started().andDecided(claim(1, claimedAt))
                    .whenFired(leaseTimerDue(Step.RESERVE_STOCK, 1, expiredAt))
                    .events(new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK,
                                    new Lease(RESERVE, 1, FencingToken.first(), expiredAt)),
                            new StockReservationRequestedEvent(ID, TENANT, ITEMS,
                                    new Lease(RESERVE, 2, new FencingToken(2), expiredAt.plus(LEASE))))
                    .cancelsNothing()
                    .schedules(leaseTimerDue(Step.RESERVE_STOCK, 2, expiredAt.plus(LEASE)));
        }

        @Test
        void the_claim_starts_the_lease_even_when_it_does_not_move_the_expiry() {
            // picked up at once: the claim's own expiry (T0 + LEASE) is not later, but it is recorded as the claim
            started()
                    .when(claim(1, T0))
                    .events(new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK, lease(Step.RESERVE_STOCK, 1, T0)))
                    .cancels(leaseTimer(Step.RESERVE_STOCK, 1, T0))
                    .schedules(leaseTimer(Step.RESERVE_STOCK, 1, T0));
        }

        @Test
        void an_old_heartbeat_delivered_late_to_a_claimed_lease_changes_nothing() {
            started().andDecided(claim(1, T0.plusSeconds(5)))
                    .when(claim(1, T0.plusSeconds(3)))
                    .nothing();
        }

        @Test
        void a_heartbeat_at_the_same_instant_as_the_claim_changes_nothing() {
            started().andDecided(claim(1, T0.plusSeconds(5)))
                    .when(claim(1, T0.plusSeconds(5)))
                    .nothing();
        }

        @Test
        void a_later_heartbeat_moves_the_claimed_lease_again() {
            started().andDecided(claim(1, T0.plusSeconds(5)))
                    .when(claim(1, T0.plusSeconds(5).plusMillis(1)))
                    .events(new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK,
                            new Lease(RESERVE, 1, token(1), T0.plusSeconds(5).plusMillis(1).plus(LEASE))))
                    .cancels(leaseTimerDue(Step.RESERVE_STOCK, 1, T0.plusSeconds(5).plus(LEASE)))
                    .schedules(leaseTimerDue(Step.RESERVE_STOCK, 1, T0.plusSeconds(5).plusMillis(1).plus(LEASE)));
        }

        @Test
        void a_lease_nobody_has_claimed_is_deferred_not_expired_the_intent_still_waits_for_a_worker() {
            Instant dueAt = T0.plus(LEASE);
            Instant checkedAgain = dueAt.plus(LEASE); // its processor has not reached the intent (rules version 2)
            started()
                    .whenFired(new Deadlines.ObservedLeaseExpiry(Step.RESERVE_STOCK, token(1), false), dueAt)
                    .events(new ActivityLeaseDeferredEvent(ID, Step.RESERVE_STOCK,
                            new Lease(RESERVE, 1, FencingToken.first(), checkedAgain)))
                    .cancelsNothing()
                    .schedules(leaseTimerDue(Step.RESERVE_STOCK, 1, checkedAgain));
        }

        @Test
        void with_one_attempt_allowed_an_unclaimed_lease_its_processor_passed_still_runs_one_lease() {
            WorkflowPolicy single = new WorkflowPolicy(LEASE, PAYMENT_LEASE, RETRY_INITIAL,
                    java.time.Duration.ofSeconds(30), 1, CheckoutScenario.RECONCILIATION_INITIAL,
                    java.time.Duration.ofMinutes(5), 3);
            given(CheckoutDecider.start(CheckoutScenario.start(), single).events())
                    .whenFired(new LeaseExpiry(Step.RESERVE_STOCK, token(1)), T0.plus(LEASE))
                    .events(new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK,
                            new Lease(RESERVE, 1, FencingToken.first(), T0.plus(LEASE).plus(LEASE))));
        }

        @Test
        void a_worker_that_claims_after_a_deferral_gets_a_full_lease_from_its_claim() {
            Instant claimedAt = T0.plus(LEASE).plusSeconds(4);
            Instant deferredTo = T0.plus(LEASE).plus(LEASE);
            given(createdHistory(), new ActivityLeaseDeferredEvent(ID, Step.RESERVE_STOCK,
                            lease(Step.RESERVE_STOCK, 1, T0.plus(LEASE))))
                    .when(claim(1, claimedAt))
                    .events(new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK,
                            new Lease(RESERVE, 1, token(1), claimedAt.plus(LEASE))))
                    .cancels(leaseTimerDue(Step.RESERVE_STOCK, 1, deferredTo))
                    .schedules(leaseTimerDue(Step.RESERVE_STOCK, 1, claimedAt.plus(LEASE)));
        }

        @Test
        void an_intent_nobody_claims_for_max_attempts_leases_is_presumed_lost_and_issued_again() {
            Instant lost = T0.plus(LEASE.multipliedBy(CheckoutScenario.MAX_ATTEMPTS));
            started()
                    .andDecided(leaseTimer(Step.RESERVE_STOCK, 1, T0))
                    .whenFired(leaseTimerDue(Step.RESERVE_STOCK, 1, lost))
                    .events(new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK,
                                    new Lease(RESERVE, 1, FencingToken.first(), lost)),
                            reservationRequested(2, lost))
                    .schedules(leaseTimer(Step.RESERVE_STOCK, 2, lost));
        }

        @Test
        void the_timer_of_a_lease_no_longer_in_force_changes_nothing() {
            // the first lease was deferred: its original timer (T0 + LEASE) may still fire on a slow node
            given(reservationReleasedToASecondOwner())
                    .whenFired(leaseTimer(Step.RESERVE_STOCK, 1, T0))
                    .nothing();
        }

        @Test
        void a_lease_timer_of_a_step_never_granted_changes_nothing() {
            given(createdHistory())
                    .whenFired(new LeaseExpiry(Step.AUTHORIZE_PAYMENT, token(1)), T0.plus(PAYMENT_LEASE))
                    .nothing();
        }

        @Test
        void once_the_result_is_in_the_old_expiry_changes_nothing() {
            started()
                    .andDecided(record(stockReservationSucceeded(1), RESERVED_AT))
                    .whenFired(leaseTimer(Step.RESERVE_STOCK, 1, T0))
                    .nothing();
        }

        @Test
        void a_result_cancels_the_expiry_of_its_lease() {
            started()
                    .when(record(stockReservationSucceeded(1), RESERVED_AT))
                    .cancels(leaseTimer(Step.RESERVE_STOCK, 1, T0))
                    .schedules(leaseTimerDue(Step.AUTHORIZE_PAYMENT, 1, RESERVED_AT.plus(PAYMENT_LEASE)));
        }

        @Test
        void claimed_leases_that_keep_expiring_exhaust_the_budget_and_send_the_checkout_to_manual_review() {
            // leases 1 and 2 expired; the owner of lease 3 claims it and then goes silent
            Instant third = T0.plus(LEASE.multipliedBy(2));
            Instant claimedAt = third.plusSeconds(1);
            given(createdHistory(),
                    new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK, lease(Step.RESERVE_STOCK, 1, T0)),
                    reservationRequested(2, T0.plus(LEASE)),
                    new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK, lease(Step.RESERVE_STOCK, 2, T0.plus(LEASE))),
                    reservationRequested(3, third))
                    .andDecided(claim(3, claimedAt))
                    .whenFired(leaseTimerDue(Step.RESERVE_STOCK, 3, claimedAt.plus(LEASE)))
                    .events(new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK,
                                    new Lease(RESERVE, 3, token(3), claimedAt.plus(LEASE))),
                            new ManualReviewRequiredEvent(ID, Step.RESERVE_STOCK,
                                    "reserve-stock: no result within 3 leases",
                                    "operation chk-0001/reserve-stock, last attempt 3 expired at 2026-01-01T10:00:31Z"))
                    .cancelsNothing()
                    .schedulesNothing();
        }

        /** The fold: an expired lease leaves its own step expired (until it is issued again) and no other step. */
        @Test
        void an_expired_lease_leaves_its_step_expired_and_no_other() {
            CheckoutFacts facts = CheckoutFacts.INITIAL;
            for (Object event : concat(stockReservedHistory(), new ActivityLeaseExpiredEvent(ID,
                    Step.AUTHORIZE_PAYMENT, lease(Step.AUTHORIZE_PAYMENT, 1, RESERVED_AT)))) {
                facts = facts.evolve((io.durablecheckout.api.checkout.CheckoutEvent) event);
            }
            org.assertj.core.api.Assertions.assertThat(facts.run(Step.AUTHORIZE_PAYMENT).status())
                    .isEqualTo(Run.Status.EXPIRED);
            org.assertj.core.api.Assertions.assertThat(facts.run(Step.RESERVE_STOCK).status())
                    .isEqualTo(Run.Status.DONE);
        }

        @Test
        void the_second_expired_lease_is_still_issued_again() {
            Instant second = T0.plus(LEASE);
            Instant claimedAt = second.plusSeconds(1);
            given(createdHistory(),
                    new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK, lease(Step.RESERVE_STOCK, 1, T0)),
                    reservationRequested(2, second))
                    .andDecided(claim(2, claimedAt))
                    .whenFired(leaseTimerDue(Step.RESERVE_STOCK, 2, claimedAt.plus(LEASE)))
                    .events(new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK,
                                    new Lease(RESERVE, 2, token(2), claimedAt.plus(LEASE))),
                            reservationRequested(3, claimedAt.plus(LEASE)));
        }
    }

    @Nested
    class Fencing {

        @Test
        void a_result_carrying_the_token_of_an_expired_lease_is_rejected_and_changes_nothing_else() {
            given(reservationReleasedToASecondOwner())
                    .when(record(stockReservationSucceeded(1), T0.plus(LEASE).plusSeconds(1)))
                    .events(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, RESERVE, token(1), token(2)))
                    .cancelsNothing()
                    .schedulesNothing();
        }

        @Test
        void the_stale_owner_stays_fenced_out_after_the_new_owner_reported() {
            given(reservationReleasedToASecondOwner(),
                    new StockReservedEvent(ID, RESERVE, token(2)),
                    authorizationRequested(1, T0.plus(LEASE).plusSeconds(1)))
                    .when(record(stockReservationSucceeded(1), T0.plus(LEASE).plusSeconds(2)))
                    .events(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, RESERVE, token(1), token(2)));
        }

        @Test
        void the_owner_of_the_lease_in_force_is_heard() {
            Instant reportedAt = T0.plus(LEASE).plusSeconds(1);
            given(reservationReleasedToASecondOwner())
                    .when(record(stockReservationSucceeded(2), reportedAt))
                    .events(new StockReservedEvent(ID, RESERVE, token(2)), authorizationRequested(1, reportedAt))
                    .cancels(leaseTimer(Step.RESERVE_STOCK, 2, T0.plus(LEASE)));
        }

        @Test
        void a_duplicate_of_an_applied_result_is_acknowledged_without_a_decision() {
            given(stockReservedHistory())
                    .when(record(stockReservationSucceeded(1), RESERVED_AT.plusSeconds(5)))
                    .nothing();
        }

        @Test
        void a_forged_newer_token_is_rejected() {
            given(createdHistory())
                    .when(record(stockReservationSucceeded(2), RESERVED_AT))
                    .events(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, RESERVE, token(2), token(1)));
        }

        @Test
        void a_result_under_another_operation_id_is_rejected() {
            OperationId foreign = new OperationId("chk-0002/reserve-stock");
            given(createdHistory())
                    .when(record(new StockReservationSucceededEvent(ID, foreign, token(1)), RESERVED_AT))
                    .events(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, foreign, token(1), token(1)));
        }

        @Test
        void a_result_for_a_step_never_granted_is_rejected() {
            given(createdHistory())
                    .when(record(authorizationSucceeded(1), RESERVED_AT))
                    .events(new ActivityResultRejectedEvent(ID, Step.AUTHORIZE_PAYMENT, op(Step.AUTHORIZE_PAYMENT),
                            token(1), null));
        }
    }

    @Nested
    class RetryAfterFailure {

        @Test
        void a_failed_attempt_schedules_a_retry_after_the_initial_backoff_and_cancels_its_lease() {
            given(createdHistory())
                    .when(record(attemptFailed(Step.RESERVE_STOCK, 1), RESERVED_AT))
                    .events(new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 1,
                            RESERVED_AT.plus(RETRY_INITIAL), "connection reset"))
                    .cancels(leaseTimer(Step.RESERVE_STOCK, 1, T0))
                    .schedules(new Decision.Timer(Deadlines.RETRY_DUE, Step.RESERVE_STOCK, token(1), 0,
                            RESERVED_AT.plus(RETRY_INITIAL)));
        }

        @Test
        void the_retry_timer_carries_the_failed_token() {
            Decision.Timer retry = retryTimer(Step.RESERVE_STOCK, 1, RESERVED_AT.plus(RETRY_INITIAL));
            org.assertj.core.api.Assertions.assertThat(retry.payload())
                    .isEqualTo(new RetryDue(Step.RESERVE_STOCK, token(1)));
        }

        @Test
        void the_retry_timer_grants_a_new_lease_under_the_same_operation_id_with_the_next_token() {
            Instant retryAt = RESERVED_AT.plus(RETRY_INITIAL);
            started()
                    .andDecided(record(attemptFailed(Step.RESERVE_STOCK, 1), RESERVED_AT))
                    .whenFired(retryTimer(Step.RESERVE_STOCK, 1, retryAt))
                    .events(new StockReservationRequestedEvent(ID, TENANT, ITEMS,
                            new Lease(RESERVE, 2, new FencingToken(2), retryAt.plus(LEASE))))
                    .cancelsNothing()
                    .schedules(leaseTimerDue(Step.RESERVE_STOCK, 2, retryAt.plus(LEASE)));
        }

        @Test
        void a_retry_timer_of_an_older_failure_changes_nothing() {
            Instant retryAt = RESERVED_AT.plus(RETRY_INITIAL);
            started()
                    .andDecided(record(attemptFailed(Step.RESERVE_STOCK, 1), RESERVED_AT),
                            retryTimer(Step.RESERVE_STOCK, 1, retryAt),
                            record(attemptFailed(Step.RESERVE_STOCK, 2), retryAt.plusSeconds(1)))
                    .whenFired(retryTimer(Step.RESERVE_STOCK, 1, retryAt))
                    .nothing();
        }

        @Test
        void a_retry_timer_of_a_step_in_flight_or_never_granted_changes_nothing() {
            given(createdHistory())
                    .whenFired(new RetryDue(Step.RESERVE_STOCK, token(1)), RESERVED_AT)
                    .nothing();
            given(createdHistory())
                    .whenFired(new RetryDue(Step.AUTHORIZE_PAYMENT, token(1)), RESERVED_AT)
                    .nothing();
        }

        @Test
        void the_second_failure_doubles_the_backoff() {
            Instant secondLeaseAt = RESERVED_AT.plus(RETRY_INITIAL);
            Instant secondFailureAt = secondLeaseAt.plusSeconds(1);
            given(createdHistory(),
                    new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 1, secondLeaseAt,
                            "connection reset"),
                    reservationRequested(2, secondLeaseAt))
                    .when(record(attemptFailed(Step.RESERVE_STOCK, 2), secondFailureAt))
                    .events(new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 2,
                            secondFailureAt.plus(RETRY_INITIAL.multipliedBy(2)), "connection reset"))
                    .schedules(retryTimer(Step.RESERVE_STOCK, 2, secondFailureAt.plus(RETRY_INITIAL.multipliedBy(2))));
        }

        @Test
        void repeated_failures_exhaust_the_budget_and_send_the_checkout_to_manual_review() {
            given(twoFailedAttemptsThenAThirdLease())
                    .when(record(attemptFailed(Step.RESERVE_STOCK, 3), T0.plusSeconds(9)))
                    .events(new ManualReviewRequiredEvent(ID, Step.RESERVE_STOCK, "reserve-stock failed 3 times",
                            "operation chk-0001/reserve-stock; last failure: connection reset"))
                    .cancels(leaseTimer(Step.RESERVE_STOCK, 3, T0.plusSeconds(5)))
                    .schedulesNothing();
        }

        @Test
        void a_duplicate_failure_report_schedules_no_second_retry() {
            given(createdHistory(), new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 1,
                            RESERVED_AT.plus(RETRY_INITIAL), "connection reset"))
                    .when(record(attemptFailed(Step.RESERVE_STOCK, 1), RESERVED_AT.plusMillis(10)))
                    .nothing();
        }
    }

    @Nested
    class OperatorRetry {

        private final Instant retriedAt = T0.plusSeconds(60);

        @Test
        void an_operator_retry_grants_the_next_lease_of_the_blocked_step() {
            given(blockedOnReservation())
                    .when(new RetryActivityCommand(ID, null, retriedAt))
                    .events(new OperatorRetryRequestedEvent(ID, Step.RESERVE_STOCK),
                            new StockReservationRequestedEvent(ID, TENANT, ITEMS,
                                    new Lease(RESERVE, 4, new FencingToken(4), retriedAt.plus(LEASE))))
                    .cancelsNothing()
                    .schedules(leaseTimerDue(Step.RESERVE_STOCK, 4, retriedAt.plus(LEASE)));
        }

        @Test
        void an_operator_retry_starts_a_fresh_failure_budget() {
            Instant failedAt = retriedAt.plusSeconds(1);
            given(blockedOnReservation(), new OperatorRetryRequestedEvent(ID, Step.RESERVE_STOCK),
                    reservationRequested(4, retriedAt))
                    .when(record(attemptFailed(Step.RESERVE_STOCK, 4), failedAt))
                    .events(new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 4,
                            failedAt.plus(RETRY_INITIAL), "connection reset"));
        }

        @Test
        void a_late_result_from_the_blocked_lease_after_an_operator_retry_is_rejected() {
            given(blockedOnReservation(), new OperatorRetryRequestedEvent(ID, Step.RESERVE_STOCK),
                    reservationRequested(4, retriedAt))
                    .when(record(stockReservationSucceeded(3), retriedAt.plusSeconds(1)))
                    .events(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, RESERVE, token(3), token(4)));
        }
    }

    @Nested
    class LateEvidence {

        @Test
        void a_late_result_from_the_current_owner_settles_a_manual_review_instead_of_being_dropped() {
            Instant late = T0.plusSeconds(30);
            given(blockedOnReservation())
                    .when(record(stockReservationSucceeded(3), late))
                    .events(new StockReservedEvent(ID, RESERVE, token(3)), authorizationRequested(1, late))
                    .cancels(leaseTimer(Step.RESERVE_STOCK, 3, T0.plusSeconds(5)));
        }

        @Test
        void a_late_result_with_an_older_token_during_manual_review_is_still_rejected() {
            given(blockedOnReservation())
                    .when(record(stockReservationSucceeded(2), T0.plusSeconds(30)))
                    .events(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, RESERVE, token(2), token(3)));
        }

        @Test
        void the_failure_that_caused_a_manual_review_delivered_again_changes_nothing() {
            // at-least-once delivery (e.g. through Axon Server) must not send a reviewed checkout round again
            given(blockedOnReservation())
                    .when(record(attemptFailed(Step.RESERVE_STOCK, 3), T0.plusSeconds(30)))
                    .nothing();
        }
    }

    @Nested
    class Renewal {

        @Test
        void the_current_owner_extends_its_lease_and_the_timer_moves() {
            Instant beatAt = T0.plusSeconds(8);
            given(createdHistory())
                    .when(claim(1, beatAt))
                    .events(new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK,
                            new Lease(RESERVE, 1, token(1), beatAt.plus(LEASE))))
                    .cancels(leaseTimer(Step.RESERVE_STOCK, 1, T0))
                    .schedules(leaseTimerDue(Step.RESERVE_STOCK, 1, beatAt.plus(LEASE)));
        }

        @Test
        void a_stale_owner_cannot_renew_and_the_attempt_is_recorded() {
            Instant expiredAt = T0.plus(LEASE);
            given(reservationReleasedToASecondOwner())
                    .when(claim(1, expiredAt.plusSeconds(1)))
                    .events(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, RESERVE, token(1), token(2)))
                    .cancelsNothing()
                    .schedulesNothing();
        }

        @Test
        void a_heartbeat_under_another_operation_id_or_for_a_step_never_granted_is_rejected() {
            OperationId foreign = new OperationId("chk-0002/reserve-stock");
            given(createdHistory())
                    .when(new RenewLeaseCommand(ID, new ActivityHeartbeatEvent(ID, Step.RESERVE_STOCK, foreign,
                            token(1)), T0.plusSeconds(1)))
                    .events(new ActivityResultRejectedEvent(ID, Step.RESERVE_STOCK, foreign, token(1), token(1)));
            given(createdHistory())
                    .when(new RenewLeaseCommand(ID, new ActivityHeartbeatEvent(ID, Step.AUTHORIZE_PAYMENT,
                            op(Step.AUTHORIZE_PAYMENT), token(1)), T0.plusSeconds(1)))
                    .events(new ActivityResultRejectedEvent(ID, Step.AUTHORIZE_PAYMENT, op(Step.AUTHORIZE_PAYMENT),
                            token(1), null));
        }

        @Test
        void the_owners_heartbeat_overtaken_by_its_own_result_changes_nothing_and_counts_as_no_stale_owner() {
            given(createdHistory(), new StockReservedEvent(ID, RESERVE, token(1)), authorizationRequested(1, RESERVED_AT))
                    .when(claim(1, RESERVED_AT.plusSeconds(1)))
                    .nothing();
        }

        @Test
        void the_payment_lease_is_renewed_for_the_payment_lease_length() {
            Instant beatAt = RESERVED_AT.plusSeconds(2);
            given(stockReservedHistory())
                    .when(new RenewLeaseCommand(ID, new ActivityHeartbeatEvent(ID, Step.AUTHORIZE_PAYMENT,
                            op(Step.AUTHORIZE_PAYMENT), token(1)), beatAt))
                    .events(new ActivityLeaseRenewedEvent(ID, Step.AUTHORIZE_PAYMENT,
                            new Lease(op(Step.AUTHORIZE_PAYMENT), 1, token(1), beatAt.plus(PAYMENT_LEASE))));
        }
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
