package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.checkout.ActivityLeaseDeferredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.CheckoutPolicy;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Deadlines.LeaseExpiry;
import io.durablecheckout.orchestrator.checkout.Deadlines.ObservedLeaseExpiry;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AMOUNT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.EMAIL;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ID;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ITEMS;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.LEASE;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.MAX_ATTEMPTS;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.PAYMENT_TOKEN;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.POLICY;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.T0;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.TENANT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.op;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.reservationRequested;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.token;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease rule of rules version 2 (issue 54), as plain decisions of {@link CheckoutDecider}: an unclaimed lease whose
 * intent the step's processor has not reached is checked again a lease later, however often; once the processor has
 * passed it, it expires as before; a checkout recorded under version 1 keeps version 1's rule.
 */
class QueuedIntentLeaseTest {

    private static final LeaseExpiry DUE = new LeaseExpiry(Step.RESERVE_STOCK, token(1));

    private static CheckoutFacts facts(int rulesVersion, CheckoutEvent... more) {
        CheckoutPolicy p = POLICY.recorded();
        CheckoutFacts f = CheckoutFacts.INITIAL.evolve(new CheckoutCreatedEvent(ID, TENANT, ITEMS, AMOUNT,
                PAYMENT_TOKEN, EMAIL, "idem-1", "fp-1", T0, new CheckoutPolicy(rulesVersion, p.leaseDuration(),
                p.paymentLeaseDuration(), p.retryInitialDelay(), p.retryMaxDelay(), p.maxAttempts(),
                p.reconciliationInitialDelay(), p.reconciliationMaxDelay(), p.reconciliationMaxLookups())));
        f = f.evolve(reservationRequested(1, T0));
        for (CheckoutEvent e : more) {
            f = f.evolve(e);
        }
        return f;
    }

    private static ObservedLeaseExpiry observed(boolean passed) {
        return new ObservedLeaseExpiry(Step.RESERVE_STOCK, token(1), passed);
    }

    private static Lease until(Instant expiresAt) {
        return new Lease(op(Step.RESERVE_STOCK), 1, token(1), expiresAt);
    }

    @Test
    void new_checkouts_record_the_rules_that_let_a_queued_intent_wait() {
        assertThat(WorkflowPolicy.RULES_VERSION).isGreaterThanOrEqualTo(WorkflowPolicy.QUEUED_INTENTS_WAIT);
        assertThat(CheckoutDecider.start(CheckoutScenario.start(), POLICY).events().get(0))
                .isInstanceOfSatisfying(CheckoutCreatedEvent.class,
                        e -> assertThat(e.policy().version()).isEqualTo(WorkflowPolicy.RULES_VERSION));
    }

    @Test
    void a_queued_intent_is_deferred_a_lease_at_a_time_and_never_expires_nor_is_issued_again() {
        CheckoutFacts f = facts(2);
        Instant due = T0.plus(LEASE);
        for (int check = 1; check <= 4 * MAX_ATTEMPTS; check++) {
            Decision d = CheckoutDecider.decide(observed(false), f, due);
            Instant next = due.plus(LEASE);
            assertThat(d.events()).as("check %d", check)
                    .containsExactly(new ActivityLeaseDeferredEvent(ID, Step.RESERVE_STOCK, until(next)));
            assertThat(d.schedule()).containsExactly(Decision.Timer.leaseExpiry(Step.RESERVE_STOCK, token(1), next));
            assertThat(d.cancel()).isEmpty();
            for (CheckoutEvent e : d.events()) {
                f = f.evolve(e);
            }
            assertThat(f.run(Step.RESERVE_STOCK).failures()).isZero();
            assertThat(f.run(Step.RESERVE_STOCK).lease().attempt()).isEqualTo(1);
            due = next;
        }
    }

    @Test
    void an_intent_the_processor_passed_after_waiting_in_the_queue_runs_its_lease_then_expires_and_is_issued_again() {
        Instant due = T0.plus(LEASE).plus(LEASE);
        CheckoutFacts f = facts(2, new ActivityLeaseDeferredEvent(ID, Step.RESERVE_STOCK, until(due)));
        Decision passed = CheckoutDecider.decide(observed(true), f, due);
        Instant runsUntil = due.plus(LEASE.multipliedBy(MAX_ATTEMPTS - 1));
        assertThat(passed.events())
                .containsExactly(new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK, until(runsUntil)));
        assertThat(passed.schedule()).containsExactly(Decision.Timer.leaseExpiry(Step.RESERVE_STOCK, token(1), runsUntil));
        f = f.evolve(passed.events().get(0));
        assertThat(CheckoutDecider.readsIntentProgress(DUE, f)).as("the lease runs: nothing more to ask").isFalse();

        Decision expired = CheckoutDecider.decide(DUE, f, runsUntil); // nobody claimed it, no result: lost
        assertThat(expired.events()).hasSize(2);
        assertThat(expired.events().get(0)).isEqualTo(new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK, until(runsUntil)));
        assertThat(expired.events().get(1)).isInstanceOfSatisfying(StockReservationRequestedEvent.class,
                e -> assertThat(e.lease()).isEqualTo(new Lease(op(Step.RESERVE_STOCK), 2, token(2), runsUntil.plus(LEASE))));
    }

    @Test
    void an_intent_the_processor_passed_by_its_first_deadline_runs_for_the_rest_of_max_attempts_leases() {
        Instant due = T0.plus(LEASE);
        ActivityLeaseRenewedEvent runs = new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK,
                until(due.plus(LEASE.multipliedBy(MAX_ATTEMPTS - 1)))); // as long as version 1's deferral
        assertThat(CheckoutDecider.decide(observed(true), facts(2), due).events()).containsExactly(runs);
        // a deadline with nothing observed is read as passed: a lease never waits on an unknown
        assertThat(CheckoutDecider.decide(DUE, facts(2), due).events()).containsExactly(runs);
    }

    @Test
    void a_claimed_lease_expires_whatever_the_processor_position() {
        Instant due = T0.plus(LEASE).plusSeconds(3);
        CheckoutFacts f = facts(2, new ActivityLeaseRenewedEvent(ID, Step.RESERVE_STOCK, until(due)));
        assertThat(CheckoutDecider.decide(observed(false), f, due).events().get(0))
                .isEqualTo(new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK, until(due)));
        assertThat(CheckoutDecider.readsIntentProgress(DUE, f)).isFalse();
    }

    @Test
    void a_history_recorded_under_version_1_keeps_version_1s_rule_even_when_the_intent_is_still_queued() {
        Instant due = T0.plus(LEASE);
        Instant presumedLost = due.plus(LEASE.multipliedBy(MAX_ATTEMPTS - 1));
        assertThat(CheckoutDecider.decide(observed(false), facts(1), due).events())
                .containsExactly(new ActivityLeaseDeferredEvent(ID, Step.RESERVE_STOCK, until(presumedLost)));
        CheckoutFacts deferred = facts(1, new ActivityLeaseDeferredEvent(ID, Step.RESERVE_STOCK, until(presumedLost)));
        assertThat(CheckoutDecider.decide(observed(false), deferred, presumedLost).events().get(0))
                .isEqualTo(new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK, until(presumedLost)));
        assertThat(CheckoutDecider.readsIntentProgress(DUE, facts(1))).isFalse();
    }

    @Test
    void the_shell_asks_for_the_processor_position_only_when_the_decision_reads_it() {
        assertThat(CheckoutDecider.readsIntentProgress(DUE, facts(2))).isTrue();
        assertThat(CheckoutDecider.readsIntentProgress(new LeaseExpiry(Step.RESERVE_STOCK, token(2)), facts(2)))
                .as("a token that is not the lease in force").isFalse();
        assertThat(CheckoutDecider.readsIntentProgress(new LeaseExpiry(Step.AUTHORIZE_PAYMENT, token(1)), facts(2)))
                .as("a step never issued").isFalse();
        CheckoutFacts done = facts(2, new io.durablecheckout.api.checkout.StockReservedEvent(ID, op(Step.RESERVE_STOCK),
                token(1)));
        assertThat(CheckoutDecider.readsIntentProgress(DUE, done)).as("a step no longer in flight").isFalse();
        assertThat(CheckoutDecider.decide(observed(false), done, T0.plus(LEASE)).events()).isEmpty();
    }

    @Test
    void the_version_of_a_policy_newer_than_the_code_is_refused() {
        CheckoutPolicy p = POLICY.recorded();
        CheckoutPolicy future = new CheckoutPolicy(WorkflowPolicy.RULES_VERSION + 1, p.leaseDuration(),
                p.paymentLeaseDuration(), p.retryInitialDelay(), p.retryMaxDelay(), p.maxAttempts(),
                p.reconciliationInitialDelay(), p.reconciliationMaxDelay(), p.reconciliationMaxLookups());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> WorkflowPolicy.of(future))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void the_shell_asks_its_port_about_the_intents_event_and_decides_with_the_answer() {
        AggregateTestFixture<Checkout> fixture = new AggregateTestFixture<>(Checkout.class);
        fixture.registerInjectableResource(POLICY);
        List<String> asked = new ArrayList<>();
        fixture.registerInjectableResource((IntentProgress) (checkout, step, sequence) -> {
            asked.add(checkout.value() + " " + step.slug() + " #" + sequence);
            return false;
        });
        Instant due = T0.plus(LEASE);
        fixture.givenCurrentTime(T0)
                .andGivenCommands(CheckoutScenario.start())
                .whenThenTimeAdvancesTo(due)
                .expectEvents(new ActivityLeaseDeferredEvent(ID, Step.RESERVE_STOCK, until(due.plus(LEASE))))
                .expectScheduledDeadline(due.plus(LEASE), DUE);
        assertThat(asked).containsExactly(ID.value() + " reserve-stock #1"); // event 0 created, 1 the intent
    }
}
