package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Deadlines.LeaseExpiry;
import io.durablecheckout.orchestrator.checkout.Deadlines.ReconciliationDue;
import io.durablecheckout.orchestrator.checkout.Deadlines.RetryDue;
import org.axonframework.common.Priority;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.ScopeDescriptor;
import org.axonframework.messaging.annotation.ParameterResolver;
import org.axonframework.messaging.annotation.ParameterResolverFactory;
import org.axonframework.modelling.command.ConflictingAggregateVersionException;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.axonframework.test.deadline.StubDeadlineManager;
import org.hamcrest.CustomTypeSafeMatcher;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Executable;
import java.lang.reflect.Parameter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AUTHORIZED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ID;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ITEMS;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.LEASE;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.PAYMENT_LEASE;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RECONCILIATION_INITIAL;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RESERVED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RETRY_INITIAL;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.T0;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.TENANT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.attemptFailed;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.authorizationUnknown;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.lease;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.op;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.record;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.start;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservationSucceeded;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.token;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What only the Axon shell ({@link Checkout}) does, through {@link AggregateTestFixture}: the lease timer's handle in
 * the event's metadata and its cancellation by that handle, cancelling before scheduling, routing each deadline to the
 * decider, the injected policy and Axon's version check. Every rule is {@link CheckoutDecider}'s and is tested at the
 * function ({@link DeciderSpec}); PIT leaves this class out of its run (orchestrator/pom.xml).
 */
class CheckoutShellTest {

    private final AggregateTestFixture<Checkout> fixture = CheckoutScenario.fixture();

    private static RenewLeaseCommand heartbeat(long token, Instant at) {
        return new RenewLeaseCommand(ID, new ActivityHeartbeatEvent(ID, Step.RESERVE_STOCK, op(Step.RESERVE_STOCK),
                token(token)), at);
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
                })
                .expectScheduledDeadlineWithName(T0.plus(LEASE), Deadlines.LEASE_EXPIRED);
    }

    /** The renewal's event carries its timer's new handle; the result cancels the timer by it. */
    @Test
    void a_result_cancels_the_timer_of_a_renewed_lease_by_the_handle_its_event_carries() {
        fixture.givenCurrentTime(T0)
                .andGivenCommands(start(), heartbeat(1, T0.plusSeconds(5)))
                .when(record(stockReservationSucceeded(1), T0.plusSeconds(6)))
                .expectNoScheduledDeadline(T0.plusSeconds(5).plus(LEASE), new LeaseExpiry(Step.RESERVE_STOCK, token(1)))
                .expectNoScheduledDeadline(T0.plus(LEASE), new LeaseExpiry(Step.RESERVE_STOCK, token(1)))
                .expectScheduledDeadline(T0.plusSeconds(6).plus(PAYMENT_LEASE),
                        new LeaseExpiry(Step.AUTHORIZE_PAYMENT, token(1)));
    }

    /** A claim that does not move the expiry cancels the timer and schedules the same one again: one stays. */
    @Test
    void a_claim_that_keeps_the_expiry_leaves_one_live_timer() {
        fixture.givenCurrentTime(T0)
                .andGivenCommands(start())
                .when(heartbeat(1, T0))
                .expectScheduledDeadline(T0.plus(LEASE), new LeaseExpiry(Step.RESERVE_STOCK, token(1)));
    }

    @Test
    void the_shell_cancels_the_old_timer_before_it_schedules_the_new_one() {
        RecordingDeadlineManager deadlines = new RecordingDeadlineManager();
        AggregateTestFixture<Checkout> recorded = CheckoutScenario.fixture();
        recorded.registerParameterResolverFactory(deadlines.resolver());
        recorded.givenCurrentTime(T0)
                .andGivenCommands(start())
                .when(heartbeat(1, T0.plusSeconds(5)))
                .expectSuccessfulHandlerExecution();
        assertThat(deadlines.calls).containsExactly(
                "schedule " + Deadlines.LEASE_EXPIRED + " " + T0.plus(LEASE),
                "cancel " + Deadlines.LEASE_EXPIRED + " handle-1",
                "schedule " + Deadlines.LEASE_EXPIRED + " " + T0.plusSeconds(5).plus(LEASE));
    }

    @Test
    void a_lease_deadline_is_routed_to_the_decider_at_its_due_time() {
        Instant claimedAt = T0.plusSeconds(1);
        Instant expiredAt = claimedAt.plus(LEASE);
        fixture.givenCurrentTime(T0)
                .andGivenCommands(start(), heartbeat(1, claimedAt))
                .whenThenTimeAdvancesTo(expiredAt)
                .expectTriggeredDeadlinesWithName(Deadlines.LEASE_EXPIRED)
                .expectEvents(
                        new ActivityLeaseExpiredEvent(ID, Step.RESERVE_STOCK,
                                new Lease(op(Step.RESERVE_STOCK), 1, FencingToken.first(), expiredAt)),
                        new StockReservationRequestedEvent(ID, TENANT, ITEMS, lease(Step.RESERVE_STOCK, 2, expiredAt)))
                .expectScheduledDeadline(expiredAt.plus(LEASE), new LeaseExpiry(Step.RESERVE_STOCK, token(2)));
    }

    @Test
    void a_retry_deadline_is_routed_to_the_decider_at_its_due_time() {
        Instant retryAt = RESERVED_AT.plus(RETRY_INITIAL);
        fixture.givenCurrentTime(T0)
                .andGivenCommands(start(), record(attemptFailed(Step.RESERVE_STOCK, 1), RESERVED_AT))
                .whenThenTimeAdvancesTo(retryAt)
                .expectTriggeredDeadlines(new RetryDue(Step.RESERVE_STOCK, token(1)))
                .expectEvents(new StockReservationRequestedEvent(ID, TENANT, ITEMS,
                        lease(Step.RESERVE_STOCK, 2, retryAt)));
    }

    @Test
    void a_reconciliation_deadline_is_routed_to_the_decider_at_its_due_time() {
        Instant due = AUTHORIZED_AT.plus(RECONCILIATION_INITIAL);
        fixture.givenCurrentTime(T0)
                .andGivenCommands(start(), record(stockReservationSucceeded(1), RESERVED_AT),
                        record(authorizationUnknown(1), AUTHORIZED_AT))
                .whenThenTimeAdvancesTo(due)
                .expectTriggeredDeadlines(new ReconciliationDue(1))
                .expectEvents(new PaymentReconciliationRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), 1,
                        lease(Step.RECONCILE_PAYMENT, 1, due)));
    }

    @Test
    void a_new_checkout_records_the_policy_the_node_is_configured_with() {
        WorkflowPolicy configured = new WorkflowPolicy(Duration.ofMinutes(2), Duration.ofMinutes(3),
                Duration.ofSeconds(7), Duration.ofMinutes(10), 8, Duration.ofSeconds(11), Duration.ofMinutes(30), 20);
        AggregateTestFixture<Checkout> node = new AggregateTestFixture<>(Checkout.class);
        node.registerInjectableResource(configured);
        node.givenNoPriorActivity()
                .when(start())
                .expectEventsMatching(org.axonframework.test.matchers.Matchers.payloadsMatching(
                        org.axonframework.test.matchers.Matchers.listWithAnyOf(
                                org.axonframework.test.matchers.Matchers.predicate(p -> p instanceof CheckoutCreatedEvent c
                                        && c.policy().equals(configured.recorded())))));
    }

    @Test
    void a_resolution_decided_on_an_outdated_view_is_refused_by_the_version_check() {
        List<Object> history = CheckoutScenario.concat(stockReservedHistory(),
                new io.durablecheckout.api.checkout.ManualReviewRequiredEvent(ID, Step.AUTHORIZE_PAYMENT,
                        "authorize-payment failed 3 times", "operation chk-0001/authorize-payment"));
        long outdatedVersion = history.size() - 2; // the operator looked before the manual review was recorded
        fixture.given(history)
                .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, "psp-auth-99", "seen",
                        outdatedVersion, T0.plusSeconds(600)))
                .expectException(ConflictingAggregateVersionException.class)
                .expectNoEvents();
    }

    /** A deadline manager that writes down, in order, what the shell asked of it; handles are handle-1, handle-2... */
    static final class RecordingDeadlineManager extends StubDeadlineManager {
        final List<String> calls = new ArrayList<>();

        @Override
        public String schedule(Instant at, String name, Object payload, ScopeDescriptor scope) {
            calls.add("schedule " + name + " " + at);
            super.schedule(at, name, payload, scope);
            return "handle-" + calls.stream().filter(c -> c.startsWith("schedule")).count();
        }

        @Override
        public void cancelSchedule(String name, String handle) {
            calls.add("cancel " + name + " " + handle);
        }

        ParameterResolverFactory resolver() {
            return new Resolver(this);
        }

        @Priority(Priority.FIRST)
        record Resolver(DeadlineManager manager) implements ParameterResolverFactory {
            @Override
            public ParameterResolver<?> createInstance(Executable executable, Parameter[] parameters, int index) {
                if (!DeadlineManager.class.equals(parameters[index].getType())) {
                    return null;
                }
                return new ParameterResolver<DeadlineManager>() {
                    @Override
                    public DeadlineManager resolveParameterValue(Message<?> message) {
                        return manager;
                    }

                    @Override
                    public boolean matches(Message<?> message) {
                        return true;
                    }
                };
            }
        }
    }
}
