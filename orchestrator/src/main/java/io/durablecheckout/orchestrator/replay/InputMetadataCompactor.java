package io.durablecheckout.orchestrator.replay;

import org.axonframework.eventhandling.EventMessage;
import org.axonframework.messaging.MessageDispatchInterceptor;
import org.axonframework.messaging.MetaData;

import javax.annotation.Nonnull;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Keeps each recorded input once: Axon adds correlation data to every event of an input, so without this every event
 * would repeat the input and the deadline operations so far. Before the events are stored (the event bus intercepts
 * a unit of work's events together, in order, at prepare-commit), the input stays on the first event of each input
 * and the deadline operations on its last; the events in between keep neither. Replay groups events by the handled
 * message's id ({@code correlationId}), which every event keeps.
 */
final class InputMetadataCompactor implements MessageDispatchInterceptor<EventMessage<?>> {

    @Nonnull
    @Override
    public BiFunction<Integer, EventMessage<?>, EventMessage<?>> handle(@Nonnull List<? extends EventMessage<?>> messages) {
        Map<Object, Integer> first = new HashMap<>();
        Map<Object, Integer> last = new HashMap<>();
        for (int i = 0; i < messages.size(); i++) {
            Object id = inputId(messages.get(i));
            if (id != null) {
                first.putIfAbsent(id, i);
                last.put(id, i);
            }
        }
        if (first.isEmpty()) {
            return (index, message) -> message;
        }
        List<EventMessage<?>> compacted = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            EventMessage<?> message = messages.get(i);
            Object id = inputId(message);
            if (id == null) {
                compacted.add(message);
                continue;
            }
            List<String> drop = new ArrayList<>(2);
            if (first.get(id) != i) {
                drop.add(RecordedInputs.INPUT);
            }
            if (last.get(id) != i) {
                drop.add(RecordedInputs.DEADLINES);
            }
            compacted.add(drop.isEmpty() ? message : message.withMetaData(MetaData.from(message.getMetaData())
                    .withoutKeys(new java.util.HashSet<>(drop))));
        }
        return (index, message) -> compacted.get(index);
    }

    private static Object inputId(EventMessage<?> message) {
        return message.getMetaData().get(RecordedInputs.INPUT) instanceof Map<?, ?> input ? input.get("id") : null;
    }
}
