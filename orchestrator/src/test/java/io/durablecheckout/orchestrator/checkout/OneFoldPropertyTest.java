package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.CancellationNoticeDeliverySucceededEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationDeclinedEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationOutcomeUnknownEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationSucceededEvent;
import io.durablecheckout.api.activity.PaymentLookupAnsweredEvent;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.activity.PaymentRefundSucceededEvent;
import io.durablecheckout.api.activity.PaymentVoidSucceededEvent;
import io.durablecheckout.api.activity.ReceiptDeliverySucceededEvent;
import io.durablecheckout.api.activity.StockReleaseSucceededEvent;
import io.durablecheckout.api.activity.StockReservationRejectedEvent;
import io.durablecheckout.api.activity.StockReservationSucceededEvent;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.RecordProviderNotificationCommand;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.CaptureMode;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.command.CapturePaymentCommand;
import io.durablecheckout.orchestrator.readmodel.CheckoutView;
import io.durablecheckout.orchestrator.readmodel.CheckoutViewFolder;
import io.durablecheckout.orchestrator.replay.HistoryBundle;
import io.durablecheckout.orchestrator.replay.HistoryEvent;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ID;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One fold: the read model's view and the aggregate's facts agree on the checkout's state, and on every step's
 * status, after every event, for every recorded history of the replay corpus and for histories the decision function
 * itself writes from random inputs (results of every kind, stale reports, heartbeats, timers, cancellations, operators, provider notices).
 */
class OneFoldPropertyTest {

    @Test
    void the_view_and_the_facts_agree_after_every_event_of_every_corpus_history() throws Exception {
        List<Path> files;
        try (Stream<Path> list = Files.list(Path.of(getClass().getResource("/replay-corpus").toURI()))) {
            files = list.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        }
        assertThat(files).hasSizeGreaterThan(10);
        for (Path file : files) {
            List<CheckoutEvent> events = HistoryBundle.read(file).events().stream()
                    .map(HistoryEvent::payload).map(CheckoutEvent.class::cast).toList();
            assertSameStateAfterEveryEvent(file.getFileName().toString(), events);
        }
    }

    @Property(tries = 300)
    void the_view_and_the_facts_agree_after_every_event_of_generated_histories(
            @ForAll("choices") List<Integer> choices) {
        List<CheckoutEvent> history = generate(choices);
        Statistics.label("final state").collect(fold(history).state());
        assertSameStateAfterEveryEvent("generated from " + choices, history);
    }

    /** The generator is worth its tries: its histories pass through every state a checkout can be in. */
    @Test
    void generated_histories_reach_every_state() {
        java.util.Random random = new java.util.Random(42);
        java.util.Set<CheckoutState> seen = java.util.EnumSet.noneOf(CheckoutState.class);
        for (int n = 0; n < 2000; n++) {
            List<Integer> choices = random.ints(1 + random.nextInt(60), 0, 1000).boxed().toList();
            CheckoutFacts facts = CheckoutFacts.INITIAL;
            for (CheckoutEvent e : generate(choices)) {
                facts = facts.evolve(e);
                seen.add(facts.state());
            }
        }
        assertThat(seen).containsExactlyInAnyOrder(CheckoutState.values());
    }

    @Provide
    Arbitrary<List<Integer>> choices() {
        return Arbitraries.integers().between(0, 999).list().ofMinSize(1).ofMaxSize(40);
    }

    private static void assertSameStateAfterEveryEvent(String what, List<CheckoutEvent> events) {
        CheckoutFacts facts = CheckoutFacts.INITIAL;
        CheckoutView view = null;
        long sequence = 0;
        for (CheckoutEvent event : events) {
            facts = facts.evolve(event);
            view = CheckoutViewFolder.fold(view, event, sequence, CheckoutScenario.T0.plusSeconds(sequence));
            assertThat(view.state).as("%s: state after event %d (%s)", what, sequence, event.getClass().getSimpleName())
                    .isEqualTo(facts.state().wireName());
            for (Step step : Step.values()) {
                Run run = facts.run(step);
                CheckoutView.Activity activity = view.activities.get(step.slug());
                assertThat(activity == null ? null : CheckoutViewFolder.statusOf(activity.status))
                        .as("%s: %s's status after event %d (%s), worded %s", what, step.slug(), sequence,
                                event.getClass().getSimpleName(), activity == null ? null : activity.status)
                        .isEqualTo(run == null ? null : run.status());
            }
            sequence++;
        }
    }

    private static CheckoutFacts fold(List<CheckoutEvent> events) {
        CheckoutFacts facts = CheckoutFacts.INITIAL;
        for (CheckoutEvent e : events) {
            facts = facts.evolve(e);
        }
        return facts;
    }

    // ------------------------------------------------------------------------------------ generated histories

    /** Feeds the decision function one input per choice, picked among those that make sense in the facts so far. */
    static List<CheckoutEvent> generate(List<Integer> choices) {
        Instant now = CheckoutScenario.T0;
        // half the histories capture on confirmation, half wait for the tenant's capture
        CaptureMode mode = !choices.isEmpty() && choices.get(0) % 2 == 1 ? CaptureMode.DEFERRED
                : CaptureMode.ON_CONFIRMATION;
        List<CheckoutEvent> history = new ArrayList<>(CheckoutDecider.start(CheckoutScenario.start(mode),
                CheckoutScenario.POLICY).events());
        CheckoutFacts facts = fold(history);
        for (int choice : choices) {
            now = now.plusSeconds(1 + choice % 7);
            List<Object> inputs = inputs(facts, choice, now);
            Object input = inputs.get(choice % inputs.size());
            Decision decision;
            try {
                decision = CheckoutDecider.decide(input, facts, now);
            } catch (IllegalCheckoutTransitionException refused) {
                continue; // refused, nothing written: as the aggregate would
            }
            for (CheckoutEvent e : decision.events()) {
                history.add(e);
                facts = facts.evolve(e);
            }
        }
        return history;
    }

    private static List<Object> inputs(CheckoutFacts facts, int choice, Instant now) {
        List<Object> inputs = new ArrayList<>();
        for (Step step : Step.values()) {
            Run run = facts.run(step);
            if (run == null) {
                continue;
            }
            OperationId op = run.lease().operationId();
            FencingToken token = run.lease().fencingToken();
            if (run.inFlight()) {
                results(step, op, token, choice).forEach(r -> inputs.add(new RecordActivityResultCommand(ID, r, now)));
                inputs.add(new RenewLeaseCommand(ID, new ActivityHeartbeatEvent(ID, step, op, token), now));
                inputs.add(new Deadlines.LeaseExpiry(step, token));
            }
            if (run.status() == Run.Status.WAITING_RETRY) {
                inputs.add(new Deadlines.RetryDue(step, token));
            }
            if (token.value() > 1) { // a stale owner reports
                inputs.add(new RecordActivityResultCommand(ID, results(step, op,
                        new FencingToken(token.value() - 1), choice).get(0), now));
            }
        }
        inputs.add(new Deadlines.ReconciliationDue(facts.scheduledLookup()));
        inputs.add(new CapturePaymentCommand(ID, choice % 4 == 0 ? new Money(1000, "EUR") : null, now));
        inputs.add(new Deadlines.CustomerActionDue(now));
        if (facts.holdExpiresAt() != null) {
            inputs.add(new Deadlines.HoldExpiry(facts.holdExpiresAt()));
        }
        inputs.add(new RequestCancellationCommand(ID, CancellationReason.CUSTOMER_REQUEST, "changed my mind", null, now));
        inputs.add(new RetryActivityCommand(ID, null, now));
        inputs.add(new ResolveManualReviewCommand(ID, choice % 2 == 0 ? ManualResolution.AUTHORIZED
                : ManualResolution.DECLINED, "psp-op-" + choice, "checked at the provider", null, now));
        inputs.add(new RecordProviderNotificationCommand(ID, OperationId.of(ID, Step.AUTHORIZE_PAYMENT),
                choice % 3 == 0 ? PaymentLookupOutcome.DECLINED : PaymentLookupOutcome.AUTHORIZED, "psp-n-" + choice,
                "evt_" + choice % 5, now));
        return inputs;
    }

    private static List<ActivityResultEvent> results(Step step, OperationId op, FencingToken token, int choice) {
        ActivityResultEvent failed = new ActivityAttemptFailedEvent(ID, step, op, token, "connection reset");
        return switch (step) {
            case RESERVE_STOCK -> List.of(new StockReservationSucceededEvent(ID, op, token), failed,
                    new StockReservationRejectedEvent(ID, op, token, CancellationReason.OUT_OF_STOCK, "none left"));
            case AUTHORIZE_PAYMENT -> List.of(new PaymentAuthorizationSucceededEvent(ID, op, token, "psp-" + choice),
                    failed, new PaymentAuthorizationDeclinedEvent(ID, op, token, "card declined"),
                    new PaymentAuthorizationOutcomeUnknownEvent(ID, op, token, "provider timeout"),
                    new io.durablecheckout.api.activity.PaymentAuthorizationActionRequiredEvent(ID, op, token,
                            "{\"type\":\"redirect_to_url\"}", "pi_" + choice));
            case RECONCILE_PAYMENT -> List.of(new PaymentLookupAnsweredEvent(ID, op, token,
                    OperationId.of(ID, Step.AUTHORIZE_PAYMENT),
                    PaymentLookupOutcome.values()[choice % PaymentLookupOutcome.values().length], "psp-l-" + choice,
                    null), failed);
            case SEND_RECEIPT -> List.of(new ReceiptDeliverySucceededEvent(ID, op, token), failed);
            case CAPTURE_PAYMENT -> List.of(new io.durablecheckout.api.activity.PaymentCaptureSucceededEvent(ID, op, token,
                    "psp-c", new io.durablecheckout.api.values.Money(1000, "EUR")), failed,
                    new io.durablecheckout.api.activity.PaymentCaptureDeclinedEvent(ID, op, token, "hold lapsed"),
                    new io.durablecheckout.api.activity.PaymentCaptureOutcomeUnknownEvent(ID, op, token, "timeout"));
            case VOID_PAYMENT -> List.of(new PaymentVoidSucceededEvent(ID, op, token, "psp-v"), failed);
            case REFUND_PAYMENT -> List.of(new PaymentRefundSucceededEvent(ID, op, token, "psp-r"), failed);
            case RELEASE_STOCK -> List.of(new StockReleaseSucceededEvent(ID, op, token), failed);
            case SEND_CANCELLATION_NOTICE -> List.of(new CancellationNoticeDeliverySucceededEvent(ID, op, token), failed);
        };
    }
}
