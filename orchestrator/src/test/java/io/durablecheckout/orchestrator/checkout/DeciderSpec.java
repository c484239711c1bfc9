package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.RecordProviderNotificationCommand;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Decision.Timer;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Given events, when an input, then a decision: {@link CheckoutDecider} tested as the function it is, asserting the
 * {@link Decision} value that replay compares (events in order, timers cancelled, timers scheduled). No Axon.
 * <pre>
 * given(createdHistory())
 *         .when(record(stockReservationSucceeded(1), RESERVED_AT))
 *         .events(reserved, authorizationRequested(1, RESERVED_AT))   // then: exactly these, in this order
 *         .cancels(leaseTimer(Step.RESERVE_STOCK, 1, T0))                // the timer of lease 1 granted at T0
 *         .schedules(leaseTimer(Step.AUTHORIZE_PAYMENT, 1, RESERVED_AT));
 * </pre>
 * A command is decided at its own time (the one the shell passes: observed, requested, resolved, received); a timer
 * at its due time. {@link #started()} and {@link #andDecided} build the history through the decider itself and keep
 * the timers it left open (scheduled, not yet cancelled or fired), so {@link Then#leavesNoTimers()} can say that a
 * run ends with nothing scheduled.
 */
final class DeciderSpec {

    private final List<CheckoutEvent> history = new ArrayList<>();
    private CheckoutFacts facts = CheckoutFacts.INITIAL;
    /** Timers the decided inputs left scheduled; null when the history was given as events (timers unknown). */
    private Set<Timer> open;

    private DeciderSpec() {
    }

    /** A history of events (lists, as {@link CheckoutScenario}'s histories are, are flattened). */
    static DeciderSpec given(Object... events) {
        DeciderSpec spec = new DeciderSpec();
        spec.add(List.of(events));
        return spec;
    }

    /** The checkout as {@link CheckoutDecider#start} decides it under {@link CheckoutScenario#POLICY}. */
    static DeciderSpec started() {
        DeciderSpec spec = new DeciderSpec();
        spec.open = new LinkedHashSet<>();
        spec.carry(CheckoutDecider.start(CheckoutScenario.start(), CheckoutScenario.POLICY), null);
        return spec;
    }

    /** Starting a checkout on a node configured with {@code configured}. */
    static Then whenStarting(StartCheckoutCommand start, WorkflowPolicy configured) {
        DeciderSpec spec = new DeciderSpec();
        spec.open = new LinkedHashSet<>();
        try {
            return spec.then(CheckoutDecider.start(start, configured), null);
        } catch (IllegalCheckoutTransitionException refused) {
            return new Then(null, refused, spec);
        }
    }

    /** More history: commands (at their own time) or fired timers ({@link Timer}), each decided in turn. */
    DeciderSpec andDecided(Object... inputs) {
        for (Object input : inputs) {
            if (input instanceof Timer timer) {
                carry(CheckoutDecider.decide(timer.payload(), facts, timer.due()), timer);
            } else {
                carry(CheckoutDecider.decide(input, facts, timeOf(input)), null);
            }
        }
        return this;
    }

    /** More history as events (the open timers are no longer known). */
    DeciderSpec andGiven(Object... events) {
        add(List.of(events));
        open = null;
        return this;
    }

    /** A command, decided at its own time. */
    DeciderSpec.Then when(Object command) {
        return decide(command, timeOf(command), null);
    }

    /** A timer fires: its payload, decided at its due time. */
    DeciderSpec.Then whenFired(Timer timer) {
        return decide(timer.payload(), timer.due(), timer);
    }

    /** A timer's payload delivered at {@code at} (e.g. one that fires late, or one no decision scheduled). */
    DeciderSpec.Then whenFired(Object payload, Instant at) {
        return decide(payload, at, null);
    }

    // ------------------------------------------------------------------------------------------------ timers

    static Timer leaseTimerDue(Step step, long token, Instant due) {
        return Timer.leaseExpiry(step, new FencingToken(token), due);
    }

    /** The expiry timer of the {@code n}-th lease of {@code step} granted at {@code grantedAt} (as {@link CheckoutScenario#lease}). */
    static Timer leaseTimer(Step step, int n, Instant grantedAt) {
        return Timer.leaseExpiry(step, new FencingToken(n), CheckoutScenario.lease(step, n, grantedAt).expiresAt());
    }

    static Timer retryTimer(Step step, long failedToken, Instant due) {
        return Timer.retry(step, new FencingToken(failedToken), due);
    }

    static Timer lookupTimer(int lookupNumber, Instant due) {
        return Timer.lookup(lookupNumber, due);
    }

    // ------------------------------------------------------------------------------------------------ internals

    private Then decide(Object input, Instant at, Timer fired) {
        Decision decision;
        try {
            decision = CheckoutDecider.decide(input, facts, at);
        } catch (IllegalCheckoutTransitionException refused) {
            return new Then(null, refused, this);
        }
        return then(decision, fired);
    }

    private Then then(Decision decision, Timer fired) {
        carry(decision, fired);
        return new Then(decision, null, this);
    }

    private void carry(Decision decision, Timer fired) {
        if (open != null) {
            if (fired != null) {
                open.remove(fired);
            }
            decision.cancel().forEach(open::remove);
            open.addAll(decision.schedule());
        }
        decision.events().forEach(this::apply);
    }

    private void add(List<?> events) {
        for (Object event : events) {
            if (event instanceof List<?> more) {
                add(more);
            } else {
                apply((CheckoutEvent) event);
            }
        }
    }

    private void apply(CheckoutEvent event) {
        history.add(event);
        facts = facts.evolve(event);
    }

    /** The time the shell passes with a command: the one the command carries, as replay reads it. */
    static Instant timeOf(Object command) {
        return io.durablecheckout.orchestrator.replay.RecordedInputs.at((io.durablecheckout.api.command.CheckoutCommand) command);
    }

    /** What the input decided. Each assertion is exact: {@code events(a, b)} means those two, in that order. */
    static final class Then {
        private final Decision decision;
        private final IllegalCheckoutTransitionException refused;
        private final DeciderSpec spec;

        private Then(Decision decision, IllegalCheckoutTransitionException refused, DeciderSpec spec) {
            this.decision = decision;
            this.refused = refused;
            this.spec = spec;
        }

        Then events(CheckoutEvent... expected) {
            assertThat(decided().events()).as("events decided").containsExactly(expected);
            return this;
        }

        Then noEvents() {
            assertThat(decided().events()).as("events decided").isEmpty();
            return this;
        }

        Then schedules(Timer... expected) {
            assertThat(decided().schedule()).as("timers scheduled").containsExactly(expected);
            return this;
        }

        Then schedulesNothing() {
            assertThat(decided().schedule()).as("timers scheduled").isEmpty();
            return this;
        }

        Then cancels(Timer... expected) {
            assertThat(decided().cancel()).as("timers cancelled").containsExactly(expected);
            return this;
        }

        Then cancelsNothing() {
            assertThat(decided().cancel()).as("timers cancelled").isEmpty();
            return this;
        }

        /** No events, no timers: the decision is {@link Decision#NOTHING}. */
        Then nothing() {
            assertThat(decided()).as("decision").isEqualTo(Decision.NOTHING);
            return this;
        }

        /** After this decision, every timer the decided run scheduled has been cancelled or has fired. */
        Then leavesNoTimers() {
            decided();
            if (spec.open == null) {
                fail("the timers of a history given as events are unknown: build it with started().andDecided(...)");
            }
            assertThat(spec.open).as("timers left scheduled").isEmpty();
            return this;
        }

        /** The input was refused, naming {@code rule}, with nothing decided. */
        Then refused(String rule) {
            assertThat(refused).as("refusal (decided instead: %s)", decision).isNotNull();
            assertThat(refused.rule()).isEqualTo(rule);
            return this;
        }

        Then refusedWithMessage(String message) {
            assertThat(refused).as("refusal (decided instead: %s)", decision).isNotNull();
            assertThat(refused.getMessage()).isEqualTo(message);
            return this;
        }

        Decision decision() {
            return decided();
        }

        private Decision decided() {
            if (refused != null) {
                throw new AssertionError("the input was refused: " + refused.getMessage(), refused);
            }
            return decision;
        }
    }
}
