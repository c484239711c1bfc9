package io.durablecheckout.orchestrator.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.command.CheckoutCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.orchestrator.checkout.Checkout;
import io.durablecheckout.orchestrator.checkout.WorkflowPolicy;
import io.durablecheckout.orchestrator.replay.ReplayReport.Divergence;
import io.durablecheckout.orchestrator.replay.ReplayReport.Verdict;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.common.Registration;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.deadline.DeadlineMessage;
import org.axonframework.deadline.GenericDeadlineMessage;
import org.axonframework.eventhandling.EventBus;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.messaging.GenericMessage;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.MessageDispatchInterceptor;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.axonframework.messaging.ScopeDescriptor;
import org.axonframework.messaging.annotation.ClasspathParameterResolverFactory;
import org.axonframework.messaging.annotation.MultiParameterResolverFactory;
import org.axonframework.messaging.annotation.SimpleResourceParameterResolverFactory;
import org.axonframework.modelling.command.inspection.AggregateModel;
import org.axonframework.modelling.command.inspection.AnnotatedAggregate;
import org.axonframework.modelling.command.inspection.AnnotatedAggregateMetaModelFactory;

import javax.annotation.Nonnull;
import java.lang.reflect.InvocationTargetException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * Re-runs today's Checkout decision code over a recorded history, with no side effects: no repository, no event
 * store, no deadline manager. Each recorded input (command or fired deadline) is fed, in order, to the aggregate as
 * built by the preceding inputs, and what it produces (events, deadline schedules and cancellations with their due
 * times) is compared with what was recorded for that input. The first difference ends the replay with a report.
 * <p>
 * The aggregate is driven through Axon's own annotated model ({@link AnnotatedAggregate}), the same handlers the
 * command bus and the deadline manager call; the deadline manager it receives records instead of scheduling.
 * Thread-safe: each thread replays with its own recorder.
 */
public final class CheckoutReplayer {

    private static final ReplayDeadlines DEADLINES = new ReplayDeadlines();
    /**
     * The replay's own resources come first, so no application context can hand the aggregate a real deadline
     * manager. The policy resource only satisfies the creation handler's signature: replay calls that constructor
     * itself, with the recorded policy.
     */
    private static final AggregateModel<Checkout> MODEL = model(Checkout.class);

    /** How a checkout is created from its first input; the aggregate's own creation handler unless a variant. */
    @FunctionalInterface
    public interface Creation<T extends Checkout> {
        T create(StartCheckoutCommand command, DeadlineManager deadlines, WorkflowPolicy configured);
    }

    private final AggregateModel<? extends Checkout> model;
    private final Creation<? extends Checkout> creation;

    public CheckoutReplayer() {
        this(MODEL, Checkout::new);
    }

    private CheckoutReplayer(AggregateModel<? extends Checkout> model, Creation<? extends Checkout> creation) {
        this.model = model;
        this.creation = creation;
    }

    /**
     * A replayer for a variant of the Checkout (a subclass with a decision changed): how a test shows that a changed
     * decision is caught, with the report it gives.
     */
    public static <T extends Checkout> CheckoutReplayer forVariant(Class<T> type, Creation<T> creation) {
        return new CheckoutReplayer(model(type), creation);
    }

    private static <T extends Checkout> AggregateModel<T> model(Class<T> type) {
        return AnnotatedAggregateMetaModelFactory.inspectAggregate(type, MultiParameterResolverFactory.ordered(
                new SimpleResourceParameterResolverFactory(List.of(DEADLINES, WorkflowPolicy.defaults())),
                ClasspathParameterResolverFactory.forClass(type)));
    }

    /** Replays a stored or bundled history. */
    public ReplayReport replay(StoredHistories.History history) {
        return replay(history.checkoutId(), history.events());
    }

    /** Replays one checkout's history (its events in sequence order). */
    public ReplayReport replay(String checkoutId, List<HistoryEvent> history) {
        return replay(checkoutId, history, true);
    }

    /**
     * Like {@link #replay(StoredHistories.History)} for a bulk run that keeps only the reports that are not identical:
     * an identical history is reported without its timeline (describing every step costs as much as a tenth of the
     * replay); any other is replayed again, deterministically, for its full report.
     */
    public ReplayReport verdict(StoredHistories.History history) {
        ReplayReport quick = quick(history);
        return quick.identical() ? quick : replay(history.checkoutId(), history.events(), true);
    }

    /**
     * Whether a history replays identically, and nothing more: no timeline, and a report that is not identical is
     * only a verdict (for its description, {@link #replay} the history read in full).
     */
    public ReplayReport quick(StoredHistories.History history) {
        return replay(history.checkoutId(), history.events(), false);
    }

    private ReplayReport replay(String checkoutId, List<HistoryEvent> history, boolean describe) {
        List<ReplayReport.Step> timeline = new ArrayList<>();
        if (history.isEmpty()) {
            return new ReplayReport(checkoutId, 0, timeline, Verdict.NOT_REPLAYABLE, null, "no events");
        }
        // consecutive events of one input share the handled message's id; the input is on the first of them
        List<List<HistoryEvent>> inputs = new ArrayList<>();
        for (HistoryEvent event : history) {
            Object id = event.inputId();
            List<HistoryEvent> last = inputs.isEmpty() ? null : inputs.get(inputs.size() - 1);
            if (last != null && id != null && id.equals(last.get(0).inputId())) {
                last.add(event);
            } else if (event.input() == null) {
                return new ReplayReport(checkoutId, history.size(), timeline, Verdict.NOT_REPLAYABLE, null,
                        "event " + event.sequence() + " (" + event.type() + ") has no recorded input: it was "
                                + "written before inputs were recorded");
            } else {
                List<HistoryEvent> group = new ArrayList<>();
                group.add(event);
                inputs.add(group);
            }
        }

        Capture capture = new Capture();
        AnnotatedAggregate<? extends Checkout> aggregate = null;
        for (int i = 0; i < inputs.size(); i++) {
            List<HistoryEvent> recorded = inputs.get(i);
            Map<String, Object> input = recorded.get(0).input();
            List<Map<String, Object>> recordedDeadlines = deadlines(recorded.get(recorded.size() - 1));
            Recorder recorder = new Recorder(recordedDeadlines);
            capture.events.clear();
            String error = null;
            DEADLINES.current.set(recorder);
            try {
                if (aggregate == null) {
                    aggregate = start(input, recorded.get(0), capture);
                } else {
                    aggregate.handle(message(input, recorded.get(0).inputPayload()));
                }
            } catch (Exception e) {
                Throwable cause = e instanceof InvocationTargetException ite ? ite.getCause() : e;
                error = cause.getClass().getSimpleName() + ": " + cause.getMessage();
            } finally {
                DEADLINES.current.remove();
            }
            Divergence divergence = compare(i + 1, input, recorded, history, capture.events, recordedDeadlines,
                    recorder.operations, error);
            if (describe) {
                timeline.add(step(i + 1, input, recorded, recordedDeadlines, divergence == null));
            }
            if (divergence != null) {
                return new ReplayReport(checkoutId, history.size(), timeline, Verdict.DIVERGED, divergence, null);
            }
        }
        return new ReplayReport(checkoutId, history.size(), timeline, Verdict.IDENTICAL, null, null);
    }

    private AnnotatedAggregate<? extends Checkout> start(Map<String, Object> input, HistoryEvent first,
                                                         Capture capture) throws Exception {
        Object command = command(input, first.inputPayload());
        if (!(command instanceof StartCheckoutCommand start)) {
            throw new IllegalStateException("the first input is " + input.get("type") + ", not a StartCheckoutCommand");
        }
        // The configuration of the day the checkout was created is an input of its first decision: it is recorded.
        if (!(first.payload() instanceof CheckoutCreatedEvent created)) {
            throw new IllegalStateException("the history starts with " + first.type());
        }
        WorkflowPolicy configured = WorkflowPolicy.of(created.policy());
        return initialize(model, creation, start, configured, capture);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Checkout> AnnotatedAggregate<T> initialize(AggregateModel<T> model,
                                                                        Creation<? extends Checkout> creation,
                                                                        StartCheckoutCommand start,
                                                                        WorkflowPolicy configured, Capture capture)
            throws Exception {
        Callable<T> factory = () -> (T) creation.create(start, DEADLINES, configured);
        return AnnotatedAggregate.initialize(factory, model, capture);
    }

    /** The recorded input as the message the aggregate handled. */
    static Message<?> message(Map<String, Object> input, RecordedInputs.StoredPayload stored) {
        if ("deadline".equals(input.get("kind"))) {
            Class<?> type = RecordedInputs.DEADLINE_PAYLOADS.get(String.valueOf(input.get("payloadType")));
            if (type == null) {
                throw new IllegalStateException("unknown deadline payload " + input.get("payloadType"));
            }
            Object payload = stored.as(type);
            Instant firedAt = Instant.parse(String.valueOf(input.get("at")));
            return new GenericDeadlineMessage<>(String.valueOf(input.get("type")), new GenericMessage<>(payload),
                    () -> firedAt);
        }
        return new GenericCommandMessage<>(command(input, stored));
    }

    static CheckoutCommand command(Map<String, Object> input, RecordedInputs.StoredPayload stored) {
        Class<?> type = RecordedInputs.COMMANDS.get(String.valueOf(input.get("type")));
        if (type == null || !"command".equals(input.get("kind"))) {
            throw new IllegalStateException("unknown input " + input.get("kind") + " " + input.get("type"));
        }
        return (CheckoutCommand) stored.as(type);
    }

    private static Divergence compare(int number, Map<String, Object> input, List<HistoryEvent> recorded,
                                      List<HistoryEvent> history, List<Object> produced,
                                      List<Map<String, Object>> recordedDeadlines,
                                      List<Map<String, Object>> producedDeadlines, String error) {
        long first = recorded.get(0).sequence();
        if (error != null) {
            return new Divergence(first, number, input, "error", describe(recorded.get(0).payload()), error,
                    List.of("today's code rejects this input: " + error), after(history, first - 1),
                    List.of());
        }
        int n = Math.max(recorded.size(), produced.size());
        for (int k = 0; k < n; k++) {
            Object r = k < recorded.size() ? recorded.get(k).payload() : null;
            Object p = k < produced.size() ? produced.get(k) : null;
            if (!Objects.equals(r, p)) {
                long position = first + k;
                JsonNode rn = r == null ? null : tree(r);
                JsonNode pn = p == null ? null : tree(p);
                List<String> differences = new ArrayList<>();
                if (r == null) {
                    differences.add("(no event recorded here) -> " + p.getClass().getSimpleName());
                } else if (p == null) {
                    differences.add(r.getClass().getSimpleName() + " -> (no event produced)");
                } else if (r.getClass() != p.getClass()) {
                    differences.add("type: " + r.getClass().getSimpleName() + " -> " + p.getClass().getSimpleName());
                } else {
                    differences.addAll(JsonDiff.diff(rn, pn));
                }
                List<String> producedAfter = new ArrayList<>();
                for (int j = k + 1; j < produced.size(); j++) {
                    producedAfter.add(produced.get(j).getClass().getSimpleName());
                }
                return new Divergence(position, number, input, "event", describe(r), describe(p), differences,
                        after(history, position), producedAfter);
            }
        }
        if (!JsonDiff.sameValues(recordedDeadlines, producedDeadlines)) {
            JsonNode rd = PlainShapes.tree(recordedDeadlines);
            JsonNode pd = PlainShapes.tree(producedDeadlines);
            long last = recorded.get(recorded.size() - 1).sequence();
            return new Divergence(last, number, input, "deadlines", rd.toString(), pd.toString(),
                    JsonDiff.diff(rd, pd), after(history, last), List.of());
        }
        return null;
    }

    private static List<String> after(List<HistoryEvent> history, long position) {
        List<String> types = new ArrayList<>();
        for (HistoryEvent e : history) {
            if (e.sequence() > position) {
                types.add(e.type());
            }
        }
        return types;
    }

    private static ReplayReport.Step step(int number, Map<String, Object> input, List<HistoryEvent> recorded,
                                          List<Map<String, Object>> deadlines, boolean identical) {
        List<String> events = recorded.stream().map(e -> e.sequence() + " " + e.type()).toList();
        List<String> ops = deadlines.stream().map(CheckoutReplayer::describeDeadline).toList();
        return new ReplayReport.Step(number, recorded.get(0).sequence(), recorded.get(recorded.size() - 1).sequence(),
                describeInput(input), events, ops, identical);
    }

    static String describeInput(Map<String, Object> input) {
        StringBuilder s = new StringBuilder().append(input.get("kind")).append(' ').append(input.get("type"));
        if (input.get("payload") instanceof Map<?, ?> payload) {
            if (payload.get("result") instanceof Map<?, ?> result && result.get("@type") != null) {
                String type = String.valueOf(result.get("@type"));
                s.append('(').append(type.substring(type.lastIndexOf('.') + 1)).append(')');
            } else if (input.get("payloadType") != null) {
                s.append('(').append(input.get("payloadType")).append(' ').append(PlainShapes.tree(payload)).append(')');
            }
        }
        s.append(" at ").append(input.get("at"));
        if (input.get("actor") != null) {
            s.append(" by ").append(input.get("actor"));
        }
        if (input.get("reason") != null) {
            s.append(" (").append(input.get("reason")).append(')');
        }
        return s.toString();
    }

    static String describeDeadline(Map<String, Object> op) {
        return "schedule".equals(op.get("op"))
                ? "schedule " + op.get("name") + " " + PlainShapes.tree(op.get("payload")) + " due " + op.get("due")
                : "cancel " + op.get("name");
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> deadlines(HistoryEvent last) {
        Object ops = last.metaData().get(RecordedInputs.DEADLINES);
        return ops instanceof List<?> list ? (List<Map<String, Object>>) list : List.of();
    }

    private static JsonNode tree(Object value) {
        return PlainShapes.tree(value); // the printed dialect: the differences read as the API shows the events
    }

    private static String describe(Object value) {
        if (value == null) {
            return "(none)";
        }
        try {
            return value.getClass().getSimpleName() + " " + PlainShapes.json(value);
        } catch (IllegalArgumentException e) {
            return value.toString();
        }
    }

    // ------------------------------------------------------------------------------------- no side effects

    /** Collects the events the aggregate applies; a deadline handed to the aggregate is not one of them. */
    private static final class Capture implements EventBus {
        final List<Object> events = new ArrayList<>();

        @Override
        public void publish(@Nonnull List<? extends EventMessage<?>> messages) {
            for (EventMessage<?> m : messages) {
                if (!(m instanceof DeadlineMessage)) {
                    events.add(m.getPayload());
                }
            }
        }

        @Nonnull
        @Override
        public Registration subscribe(@Nonnull Consumer<List<? extends EventMessage<?>>> consumer) {
            return () -> true;
        }

        @Nonnull
        @Override
        public Registration registerDispatchInterceptor(
                @Nonnull MessageDispatchInterceptor<? super EventMessage<?>> interceptor) {
            return () -> true;
        }
    }

    /**
     * What one input scheduled and cancelled. A schedule answers with the handle recorded for the same operation, so
     * the aggregate's state (which keeps the handle to cancel later) is the recorded one.
     */
    private static final class Recorder {
        final List<Map<String, Object>> operations = new ArrayList<>();
        private final List<String> recordedIds = new ArrayList<>();
        private int schedules;

        Recorder(List<Map<String, Object>> recorded) {
            for (Map<String, Object> op : recorded) {
                if ("schedule".equals(op.get("op"))) {
                    recordedIds.add(String.valueOf(op.get("id")));
                }
            }
        }

        String schedule(Instant due, String name, Object payload) {
            String id = schedules < recordedIds.size() ? recordedIds.get(schedules) : "replay-" + schedules;
            schedules++;
            operations.add(RecordedInputs.scheduleOp(id, due, name, payload));
            return id;
        }

        void cancel(String name, String id) {
            operations.add(Map.of("op", "cancel", "name", name, "id", id));
        }
    }

    /** The deadline manager the replayed aggregate receives: it only records, per thread. */
    private static final class ReplayDeadlines extends ScheduleAndCancelOnly {
        final ThreadLocal<Recorder> current = new ThreadLocal<>();

        private Recorder recorder() {
            Recorder r = current.get();
            if (r == null) {
                throw new IllegalStateException("the replay deadline manager is used outside a replay");
            }
            return r;
        }

        @Nonnull
        @Override
        public String schedule(@Nonnull Instant triggerDateTime, @Nonnull String deadlineName, Object messageOrPayload,
                               @Nonnull ScopeDescriptor deadlineScope) {
            return recorder().schedule(triggerDateTime, deadlineName, messageOrPayload);
        }

        @Override
        public void cancelSchedule(@Nonnull String deadlineName, @Nonnull String scheduleId) {
            recorder().cancel(deadlineName, scheduleId);
        }

    }
}
