package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.checkout.StockReservedEvent;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeUnknownEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AMOUNT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.EMAIL;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ID;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ITEMS;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.PAYMENT_TOKEN;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.POLICY;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.T0;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.TENANT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.attemptFailed;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.authorizationRequested;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.authorizationUnknown;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.concat;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.op;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.record;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.reservationRequested;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.start;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.token;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.given;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.leaseTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.retryTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.whenStarting;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The policy is fixed for a checkout when it is created and recorded in its first event. Each test records a
 * checkout's history under the scenario's policy ({@value CheckoutScenario#MAX_ATTEMPTS} attempts, short back-offs
 * and leases) and decides what comes next: {@link CheckoutDecider#decide} takes no configured policy at all, so the
 * decisions follow the recorded one whatever a node is configured with today (the shell's injection of the configured
 * policy into the start: {@link CheckoutShellTest}).
 */
class CheckoutDeciderPolicyTest {

    private static final OperationId RESERVE = op(Step.RESERVE_STOCK);

    /** What an operator might change {@code checkout.workflow.*} to while checkouts are in flight. */
    private static final WorkflowPolicy RECONFIGURED = new WorkflowPolicy(Duration.ofMinutes(2), Duration.ofMinutes(3),
            Duration.ofSeconds(7), Duration.ofMinutes(10), 8, Duration.ofSeconds(11), Duration.ofMinutes(30), 20);

    @Test
    void a_new_checkout_records_the_configured_policy_with_its_version() {
        CheckoutCreatedEvent created = (CheckoutCreatedEvent) whenStarting(start(), RECONFIGURED).decision()
                .events().get(0);
        assertThat(created.policy()).isEqualTo(RECONFIGURED.recorded());
        assertThat(created.policy().version()).isEqualTo(WorkflowPolicy.RULES_VERSION);
    }

    @Test
    void an_older_rules_version_to_record_is_recorded_and_an_unknown_one_refused() {
        WorkflowPolicy beforeCapture = new WorkflowPolicy(null, null, null, null, null, null, null, null, null, null,
                WorkflowPolicy.CAPTURES - 1);
        CheckoutCreatedEvent created = (CheckoutCreatedEvent) whenStarting(start(), beforeCapture).decision()
                .events().get(0);
        assertThat(created.policy().version()).isEqualTo(WorkflowPolicy.CAPTURES - 1);
        assertThat(WorkflowPolicy.defaults().recordRulesVersion()).isEqualTo(WorkflowPolicy.RULES_VERSION);
        for (int unknown : new int[] {WorkflowPolicy.QUEUED_INTENTS_WAIT - 1, WorkflowPolicy.RULES_VERSION + 1}) {
            assertThatThrownBy(() -> new WorkflowPolicy(null, null, null, null, null, null, null, null, null, null,
                    unknown)).hasMessageContaining("record-rules-version");
        }
        new WorkflowPolicy(null, null, null, null, null, null, null, null, null, null, WorkflowPolicy.QUEUED_INTENTS_WAIT);
    }

    @Test
    void a_checkout_started_under_another_policy_follows_it() {
        whenStarting(start(), RECONFIGURED)
                .schedules(new Decision.Timer(Deadlines.LEASE_EXPIRED, Step.RESERVE_STOCK, token(1), 0,
                        T0.plus(Duration.ofMinutes(2))));
    }

    @Test
    void raising_max_attempts_while_in_flight_still_sends_the_checkout_to_review_after_the_recorded_attempts() {
        // two failed attempts and a third lease under the recorded policy (3 attempts)
        List<Object> history = concat(List.of(CheckoutScenario.created(), reservationRequested(1, T0)),
                new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 1, T0.plusSeconds(2), "connection reset"),
                reservationRequested(2, T0.plusSeconds(2)),
                new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 2, T0.plusSeconds(6), "connection reset"),
                reservationRequested(3, T0.plusSeconds(6)));
        given(history)
                .when(record(attemptFailed(Step.RESERVE_STOCK, 3), T0.plusSeconds(9)))
                .events(new ManualReviewRequiredEvent(ID, Step.RESERVE_STOCK, "reserve-stock failed 3 times",
                        "operation chk-0001/reserve-stock; last failure: connection reset"))
                .schedulesNothing();
    }

    @Test
    void a_changed_back_off_does_not_move_the_next_retry_of_a_checkout_in_flight() {
        Instant failedAt = T0.plusSeconds(1);
        given(CheckoutScenario.created(), reservationRequested(1, T0))
                .when(record(attemptFailed(Step.RESERVE_STOCK, 1), failedAt))
                .events(new ActivityRetryScheduledEvent(ID, Step.RESERVE_STOCK, RESERVE, 1,
                        failedAt.plus(POLICY.retryDelay(1)), "connection reset"))
                .schedules(retryTimer(Step.RESERVE_STOCK, 1, failedAt.plus(POLICY.retryDelay(1))));
    }

    @Test
    void a_changed_lease_length_does_not_change_the_next_lease_of_a_checkout_in_flight() {
        Instant reservedAt = T0.plusSeconds(1);
        given(CheckoutScenario.created(), reservationRequested(1, T0))
                .when(record(CheckoutScenario.stockReservationSucceeded(1), reservedAt))
                .events(new StockReservedEvent(ID, RESERVE, token(1)), authorizationRequested(1, reservedAt))
                .schedules(leaseTimer(Step.AUTHORIZE_PAYMENT, 1, reservedAt));
    }

    @Test
    void a_changed_lookup_budget_does_not_change_when_reconciliation_gives_up() {
        Instant unknownAt = T0.plusSeconds(5);
        given(stockReservedHistory())
                .when(record(authorizationUnknown(1), unknownAt))
                .events(new PaymentOutcomeUnknownEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), "provider timeout"),
                        new PaymentReconciliationScheduledEvent(ID, op(Step.AUTHORIZE_PAYMENT), 1,
                                unknownAt.plus(POLICY.reconciliationDelay(1)), "provider timeout"));
    }

    @Test
    void an_unconfigured_node_uses_the_documented_defaults() {
        assertThat(WorkflowPolicy.defaults()).isEqualTo(new WorkflowPolicy(Duration.ofSeconds(30),
                Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofMinutes(1), 8, Duration.ofSeconds(2),
                Duration.ofMinutes(5), 6));
    }

    @Test
    void the_recorded_values_are_the_configured_ones_of_the_day_the_checkout_was_created() {
        CheckoutCreatedEvent created = new CheckoutCreatedEvent(ID, TENANT, ITEMS, AMOUNT, PAYMENT_TOKEN, EMAIL,
                "idem-1", "fp-1", T0, RECONFIGURED.recorded());
        assertThat(WorkflowPolicy.of(created.policy())).isEqualTo(RECONFIGURED);
        assertThat(WorkflowPolicy.of(POLICY.recorded())).isEqualTo(POLICY);
    }
}
