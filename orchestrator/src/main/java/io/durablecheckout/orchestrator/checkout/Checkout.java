package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.RecordProviderNotificationCommand;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Decision.Timer;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.deadline.annotation.DeadlineHandler;
import org.axonframework.eventhandling.Timestamp;
import org.axonframework.eventhandling.SequenceNumber;
import org.axonframework.eventsourcing.EventSourcingHandler;
import org.axonframework.messaging.MetaData;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.modelling.command.AggregateIdentifier;
import org.axonframework.modelling.command.AggregateLifecycle;
import org.axonframework.modelling.command.AggregateScopeDescriptor;
import org.axonframework.spring.stereotype.Aggregate;

import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * The Checkout as Axon sees it: a shell around {@link CheckoutDecider}. Each handler hands its input and the
 * command's (or timer's) time to the decider, applies the events decided and gives the timers to the deadline
 * manager; one sourcing handler folds every event with {@link CheckoutFacts#evolve}.
 */
@Aggregate(type = Checkout.TYPE, commandTargetResolver = "checkoutCommandTargetResolver", // decisions.md, Axon
        cache = "checkoutCache") // §78: checked where the state lives, see axon.aggregate.StaleCopyHandlerEnhancer
public class Checkout {

    public static final String TYPE = "Checkout";

    @AggregateIdentifier
    private CheckoutId checkoutId;
    private CheckoutFacts facts = CheckoutFacts.INITIAL;
    /** The deadline manager's handles of lease timers, read back from the events' metadata, to cancel them. */
    private final Map<Timer, String> leaseTimers = new HashMap<>();
    /** Each step's latest intent, as the sequence number of its event: what {@link IntentProgress} is asked about. */
    private final Map<Step, Long> intents = new EnumMap<>(Step.class);

    protected Checkout() {
        // for Axon: rebuilt from events
    }

    @CommandHandler
    public Checkout(StartCheckoutCommand cmd, DeadlineManager deadlines, WorkflowPolicy configured) {
        carry(CheckoutDecider.start(cmd, configured), cmd.checkoutId(), deadlines);
    }

    @CommandHandler public void handle(RecordActivityResultCommand c, DeadlineManager d) { decide(c, c.observedAt(), d); }
    @CommandHandler public void handle(RenewLeaseCommand c, DeadlineManager d) { decide(c, c.observedAt(), d); }
    @CommandHandler public void handle(RequestCancellationCommand c, DeadlineManager d) { decide(c, c.requestedAt(), d); }
    @CommandHandler public void handle(ResolveManualReviewCommand c, DeadlineManager d) { decide(c, c.resolvedAt(), d); }
    @CommandHandler public void handle(RetryActivityCommand c, DeadlineManager d) { decide(c, c.requestedAt(), d); }
    @CommandHandler public void handle(io.durablecheckout.api.command.RearmOverdueTimersCommand c, DeadlineManager d) {
        decide(c, c.observedAt(), d);
    }
    @CommandHandler public void handle(io.durablecheckout.api.command.CapturePaymentCommand c, DeadlineManager d) {
        decide(c, c.requestedAt(), d);
    }
    @CommandHandler public void handle(io.durablecheckout.api.command.RefundPaymentCommand c, DeadlineManager d) {
        decide(c, c.requestedAt(), d);
    }
    @CommandHandler public void handle(io.durablecheckout.api.command.SettleHoldCommand c, DeadlineManager d) {
        decide(c, c.requestedAt(), d);
    }
    @CommandHandler public void handle(RecordProviderNotificationCommand c, DeadlineManager d) {
        decide(c, c.receivedAt(), d);
    }

    /**
     * A lease's deadline. When the decision reads it, the shell asks whether the step's processor has passed the
     * intent (I/O, outside the decider) and leaves the answer in the unit of work, where it is recorded as part of the
     * input (replay.RecordedInputs).
     */
    @DeadlineHandler(deadlineName = Deadlines.LEASE_EXPIRED)
    public void on(Deadlines.LeaseExpiry due, @Timestamp Instant at, DeadlineManager d, IntentProgress progress) {
        Long intent = intents.get(due.step());
        if (intent == null || !CheckoutDecider.readsIntentProgress(due, facts)) {
            decide(due, at, d);
            return;
        }
        boolean passed = progress.passed(checkoutId, due.step(), intent);
        CurrentUnitOfWork.ifStarted(u -> u.resources().put(Deadlines.OBSERVED, Map.of(Deadlines.INTENT_PASSED, passed)));
        decide(new Deadlines.ObservedLeaseExpiry(due.step(), due.fencingToken(), passed), at, d);
    }
    @DeadlineHandler(deadlineName = Deadlines.RETRY_DUE)
    public void on(Deadlines.RetryDue due, @Timestamp Instant at, DeadlineManager d) { decide(due, at, d); }
    @DeadlineHandler(deadlineName = Deadlines.RECONCILIATION_DUE)
    public void on(Deadlines.ReconciliationDue due, @Timestamp Instant at, DeadlineManager d) { decide(due, at, d); }
    @DeadlineHandler(deadlineName = Deadlines.CUSTOMER_ACTION_DUE)
    public void on(Deadlines.CustomerActionDue due, @Timestamp Instant at, DeadlineManager d) { decide(due, at, d); }
    @DeadlineHandler(deadlineName = Deadlines.HOLD_EXPIRED)
    public void on(Deadlines.HoldExpiry due, @Timestamp Instant at, DeadlineManager d) { decide(due, at, d); }

    @EventSourcingHandler
    void on(CheckoutEvent event, MetaData metaData, @SequenceNumber Long sequenceNumber) {
        facts = facts.evolve(event);
        checkoutId = facts.checkoutId();
        if (event instanceof ActivityIntent intent && sequenceNumber != null) {
            intents.put(intent.step(), sequenceNumber);
        }
        Timer timer = Timer.ofLease(event);
        if (timer != null && metaData.get(Deadlines.LEASE_DEADLINE_ID) != null) {
            leaseTimers.put(timer, metaData.get(Deadlines.LEASE_DEADLINE_ID).toString());
        }
    }

    private void decide(Object input, Instant now, DeadlineManager deadlines) {
        carry(CheckoutDecider.decide(input, facts, now), checkoutId, deadlines);
    }

    /** Cancels, then schedules, the decision's timers, and applies its events (a lease's with its timer's handle). */
    private void carry(Decision decision, CheckoutId id, DeadlineManager deadlines) {
        for (Timer timer : decision.cancel()) {
            String handle = leaseTimers.get(timer); // kept: state changes only through the sourcing handler
            if (handle != null) { // none: written before handles were kept (nothing to cancel by name)
                deadlines.cancelSchedule(timer.name(), handle);
            }
        }
        Map<Timer, String> handles = new HashMap<>();
        for (Timer timer : decision.schedule()) {
            handles.put(timer, deadlines.schedule(timer.due(), timer.name(), timer.payload(),
                    new AggregateScopeDescriptor(TYPE, id.value())));
        }
        for (CheckoutEvent event : decision.events()) {
            String handle = handles.get(Timer.ofLease(event));
            AggregateLifecycle.apply(event, handle == null ? MetaData.emptyInstance()
                    : MetaData.with(Deadlines.LEASE_DEADLINE_ID, handle));
        }
    }
}
