package io.durablecheckout.orchestrator.replay;

import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.orchestrator.checkout.Checkout;
import io.durablecheckout.orchestrator.checkout.WorkflowPolicy;
import org.axonframework.common.Registration;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.deadline.DeadlineMessage;
import org.axonframework.eventhandling.EventBus;
import org.axonframework.eventhandling.EventMessage;
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
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import javax.annotation.Nonnull;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker's result is delivered at least once: delivered again right after it was applied, it changes nothing (no
 * event, no deadline scheduled or cancelled), at every result of every corpus history, whichever step it concludes.
 * The history then goes on exactly as recorded, so the duplicate left the checkout's state as it was.
 */
class DuplicateResultsTest {

    private static final Deadlines DEADLINES = new Deadlines();
    private static final AggregateModel<Checkout> MODEL = AnnotatedAggregateMetaModelFactory.inspectAggregate(
            Checkout.class, MultiParameterResolverFactory.ordered(
                    new SimpleResourceParameterResolverFactory(List.of(DEADLINES, WorkflowPolicy.defaults())),
                    ClasspathParameterResolverFactory.forClass(Checkout.class)));

    @TestFactory
    Stream<DynamicTest> a_result_delivered_again_right_after_it_was_applied_changes_nothing() throws Exception {
        return ReplayCorpusTest.bundles().stream().map(file -> DynamicTest.dynamicTest(
                file.getFileName().toString(), () -> replayWithDuplicates(file)));
    }

    private static void replayWithDuplicates(Path file) throws Exception {
        List<HistoryEvent> history = HistoryBundle.read(file).events();
        List<List<HistoryEvent>> inputs = new ArrayList<>();
        for (HistoryEvent event : history) {
            List<HistoryEvent> last = inputs.isEmpty() ? null : inputs.get(inputs.size() - 1);
            if (last != null && event.inputId() != null && event.inputId().equals(last.get(0).inputId())) {
                last.add(event);
            } else {
                inputs.add(new ArrayList<>(List.of(event)));
            }
        }
        Capture capture = new Capture();
        DEADLINES.operations = 0;
        AnnotatedAggregate<Checkout> aggregate = null;
        int duplicates = 0;
        for (List<HistoryEvent> recorded : inputs) {
            Map<String, Object> input = recorded.get(0).input();
            RecordedInputs.StoredPayload payload = recorded.get(0).inputPayload();
            capture.events.clear();
            Message<?> message;
            if (aggregate == null) {
                StartCheckoutCommand start = (StartCheckoutCommand) CheckoutReplayer.command(input, payload);
                WorkflowPolicy policy = WorkflowPolicy.of(((CheckoutCreatedEvent) recorded.get(0).payload()).policy());
                Callable<Checkout> created = () -> new Checkout(start, DEADLINES, policy);
                aggregate = AnnotatedAggregate.initialize(created, MODEL, capture);
                message = null;
            } else {
                message = CheckoutReplayer.message(input, payload);
                aggregate.handle(message);
            }
            assertThat(capture.events).as("%s, input %s", file.getFileName(), input.get("type"))
                    .isEqualTo(recorded.stream().map(HistoryEvent::payload).toList());
            if (message != null && message.getPayload() instanceof RecordActivityResultCommand
                    && capture.events.stream().noneMatch(e -> e instanceof ActivityResultRejectedEvent)) {
                capture.events.clear();
                int operations = DEADLINES.operations;
                aggregate.handle(message);
                assertThat(capture.events).as("%s: %s delivered again", file.getFileName(),
                        CheckoutReplayer.describeInput(input)).isEmpty();
                assertThat(DEADLINES.operations).as("deadline operations of the duplicate").isEqualTo(operations);
                duplicates++;
            }
        }
        assertThat(duplicates).as("results delivered again").isPositive();
    }

    private static final class Capture implements EventBus {
        final List<Object> events = new ArrayList<>();

        @Override
        public void publish(@Nonnull List<? extends EventMessage<?>> messages) {
            messages.forEach(m -> events.add(m.getPayload()));
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

    /** Counts what the checkout schedules and cancels; schedules nothing. */
    private static final class Deadlines extends ScheduleAndCancelOnly {
        int operations;

        @Nonnull
        @Override
        public String schedule(@Nonnull Instant triggerDateTime, @Nonnull String deadlineName, Object messageOrPayload,
                               @Nonnull ScopeDescriptor deadlineScope) {
            return "deadline-" + (++operations);
        }

        @Override
        public void cancelSchedule(@Nonnull String deadlineName, @Nonnull String scheduleId) {
            operations++;
        }

    }
}
