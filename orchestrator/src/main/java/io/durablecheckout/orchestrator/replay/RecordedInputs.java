package io.durablecheckout.orchestrator.replay;


import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.durablecheckout.api.command.CheckoutCommand;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.RecordProviderNotificationCommand;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.orchestrator.axon.deadline.DeadlineObserver;
import io.durablecheckout.orchestrator.checkout.Checkout;
import io.durablecheckout.orchestrator.checkout.Deadlines;
import io.durablecheckout.orchestrator.serialization.AxonJson;
import io.durablecheckout.orchestrator.checkout.OperatorMetadata;
import org.axonframework.commandhandling.CommandMessage;
import org.axonframework.deadline.DeadlineMessage;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.MetaData;
import org.axonframework.messaging.ScopeDescriptor;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.axonframework.modelling.command.AggregateScopeDescriptor;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What replay needs and the events alone do not say: the input that caused each decision, and the deadlines that
 * decision scheduled or cancelled. Recorded as event metadata (docs/decisions.md, "Recorded inputs"):
 * <ul>
 *   <li>{@value #INPUT}: the command (type, payload, operator who/why) or the fired deadline (name, payload, the
 *       time it fired, which the handler reads as "now");</li>
 *   <li>{@value #DEADLINES}: the deadline operations of that input so far, in order (schedule: name, payload, due
 *       time, handle; cancel: name, handle).</li>
 * </ul>
 * Every event of one input carries the same input (its {@code id} is the handled message's, which tells two inputs
 * apart); the last one carries all of its deadline operations.
 */
public final class RecordedInputs {

    public static final String INPUT = "replay.input";
    public static final String DEADLINES = "replay.deadlines";

    /**
     * Axon's own mapper: the shapes in metadata are those the event store already uses; a nested result type is
     * read only into the product's own results ({@link ReplayTypes}).
     */
    static final ObjectMapper MAPPER = ReplayTypes.guarded(AxonJson.objectMapper());

    private static final String INPUT_RESOURCE = RecordedInputs.class.getName() + ".input";
    private static final String DEADLINES_RESOURCE = RecordedInputs.class.getName() + ".deadlines";
    private static final Set<String> DEADLINE_NAMES = Set.of(Deadlines.LEASE_EXPIRED, Deadlines.RETRY_DUE,
            Deadlines.RECONCILIATION_DUE, Deadlines.HOLD_EXPIRED, Deadlines.CUSTOMER_ACTION_DUE);

    static final Map<String, Class<?>> COMMANDS = byName(CheckoutCommand.class.getPermittedSubclasses());
    static final Map<String, Class<?>> DEADLINE_PAYLOADS = byName(Deadlines.LeaseExpiry.class,
            Deadlines.RetryDue.class, Deadlines.ReconciliationDue.class, Deadlines.HoldExpiry.class,
            Deadlines.CustomerActionDue.class);

    private static final Map<Class<?>, ObjectReader> PAYLOAD_READERS = new ConcurrentHashMap<>();

    private RecordedInputs() {
    }

    /**
     * The payload of a recorded input as it was stored, read as the type replay hands the aggregate (the command, or
     * the fired deadline's payload) only when it is replayed.
     */
    @FunctionalInterface
    public interface StoredPayload {
        Object as(Class<?> type);
    }

    /**
     * A payload still in the stored metadata's bytes ({@code length} bytes at {@code offset}): read straight as its
     * type, with {@link #MAPPER}'s settings, as converting the map it was also read into would give it (without
     * writing that map out again). A payload that does not fit its type fails as that conversion does.
     */
    static StoredPayload stored(byte[] json, int offset, int length) {
        return type -> {
            try {
                return PAYLOAD_READERS.computeIfAbsent(type, MAPPER::readerFor).readValue(json, offset, length);
            } catch (IOException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        };
    }

    /** A payload only at hand as the map the metadata was read into (an event that came through the upcasters). */
    static StoredPayload converted(Map<String, Object> input) {
        return type -> MAPPER.convertValue(input.get("payload"), type);
    }

    /** The metadata to add to an event created while handling {@code message} (empty for any other message). */
    static Map<String, Object> metadataFor(Message<?> message) {
        if (!CurrentUnitOfWork.isStarted()) {
            return Map.of();
        }
        UnitOfWork<?> unitOfWork = CurrentUnitOfWork.get();
        Map<String, Object> input = unitOfWork.getOrComputeResource(INPUT_RESOURCE, k -> describe(message));
        if (input.isEmpty()) {
            return Map.of();
        }
        List<Map<String, Object>> deadlines = unitOfWork.getResource(DEADLINES_RESOURCE);
        if (deadlines == null || deadlines.isEmpty()) {
            return Map.of(INPUT, input);
        }
        return Map.of(INPUT, input, DEADLINES, List.copyOf(deadlines));
    }

    /** The message without the recorded input and deadline operations correlation added to it (if any). */
    /** The deadline manager's view of this class (it knows no product class): what the Checkout schedules and cancels. */
    public static final DeadlineObserver DEADLINE_OBSERVER = new DeadlineObserver() {
        @Override
        public void scheduled(String id, Instant due, String name, Object payload, ScopeDescriptor scope) {
            RecordedInputs.scheduled(id, due, name, payload, scope);
        }

        @Override
        public void cancelled(String name, String id) {
            RecordedInputs.cancelled(name, id);
        }

        @Override
        public <T> DeadlineMessage<T> strip(DeadlineMessage<T> message) {
            return withoutInputs(message);
        }
    };

    public static <M extends Message<?>> M withoutInputs(M message) {
        MetaData metaData = message.getMetaData();
        if (!metaData.containsKey(INPUT) && !metaData.containsKey(DEADLINES)) {
            return message;
        }
        @SuppressWarnings("unchecked")
        M stripped = (M) message.withMetaData(metaData.withoutKeys(Set.of(INPUT, DEADLINES)));
        return stripped;
    }

    /** Called by the deadline manager when the Checkout schedules a deadline. */
    public static void scheduled(String id, Instant due, String name, Object payload, ScopeDescriptor scope) {
        List<Map<String, Object>> ops = operations(scope);
        if (ops != null) {
            ops.add(op(id, due, name, payload, payload));
        }
    }

    /** Called by the deadline manager when the Checkout cancels a deadline. */
    public static void cancelled(String name, String id) {
        List<Map<String, Object>> ops = operations(null);
        if (ops != null) {
            Map<String, Object> op = new LinkedHashMap<>();
            op.put("op", "cancel");
            op.put("name", name);
            op.put("id", id);
            ops.add(op);
        }
    }

    /** A schedule operation as replay compares it: the payload as the map the stored metadata is read into. */
    static Map<String, Object> scheduleOp(String id, Instant due, String name, Object payload) {
        return op(id, due, name, payload, toMap(payload));
    }

    private static Map<String, Object> op(String id, Instant due, String name, Object payload, Object stored) {
        Map<String, Object> op = new LinkedHashMap<>();
        op.put("op", "schedule");
        op.put("name", name);
        op.put("due", due.toString());
        op.put("payloadType", payload.getClass().getSimpleName());
        op.put("payload", stored);
        op.put("id", id);
        return op;
    }

    private static List<Map<String, Object>> operations(ScopeDescriptor scope) {
        if (!CurrentUnitOfWork.isStarted()
                || (scope != null && !(scope instanceof AggregateScopeDescriptor a && Checkout.TYPE.equals(a.getType())))) {
            return null;
        }
        UnitOfWork<?> unitOfWork = CurrentUnitOfWork.get();
        Map<String, Object> input = unitOfWork.getOrComputeResource(INPUT_RESOURCE,
                k -> describe(unitOfWork.getMessage()));
        if (input.isEmpty()) {
            return null;
        }
        return unitOfWork.getOrComputeResource(DEADLINES_RESOURCE, k -> new ArrayList<>());
    }

    /**
     * The input a message represents, or an empty map if it is no input of the Checkout. The payload is the command
     * or the deadline's payload itself: the serializer writes it exactly as the map {@link #toMap} would make of it
     * (decision 83, {@code RecordedInputsTest}), and the conversion was a serialization and a parse per input.
     */
    static Map<String, Object> describe(Message<?> message) {
        if (message instanceof CommandMessage<?> command && command.getPayload() instanceof CheckoutCommand c) {
            Map<String, Object> input = new LinkedHashMap<>();
            input.put("id", message.getIdentifier());
            input.put("kind", "command");
            input.put("type", c.getClass().getSimpleName());
            input.put("at", at(c).toString());
            input.put("payload", c); // written as it is: the same JSON as its map (decision 83), without converting
            operator(command.getMetaData(), input);
            return input;
        }
        if (message instanceof DeadlineMessage<?> deadline && DEADLINE_NAMES.contains(deadline.getDeadlineName())
                && deadline.getPayload() != null) {
            Map<String, Object> input = new LinkedHashMap<>();
            input.put("id", message.getIdentifier());
            input.put("kind", "deadline");
            input.put("type", deadline.getDeadlineName());
            input.put("at", deadline.getTimestamp().toString());
            input.put("payloadType", deadline.getPayload().getClass().getSimpleName());
            input.put("payload", deadline.getPayload());
            // what the shell observed when the deadline fired (Deadlines.OBSERVED), e.g. whether the step's processor
            // had passed the intent: an input of the decision like the payload, so replay decides with it
            Map<String, Object> observed = CurrentUnitOfWork.isStarted()
                    ? CurrentUnitOfWork.get().getResource(Deadlines.OBSERVED) : null;
            if (observed != null) {
                input.putAll(observed);
            }
            return input;
        }
        return Map.of();
    }

    private static void operator(MetaData metaData, Map<String, Object> input) {
        for (String key : List.of(OperatorMetadata.ACTOR, OperatorMetadata.REASON)) {
            Object value = metaData.get(key);
            if (value != null) {
                input.put(key, value.toString());
            }
        }
    }

    /** The time the command carries; the aggregate reads it as "now". */
    public static Instant at(CheckoutCommand command) {
        if (command instanceof StartCheckoutCommand c) {
            return c.requestedAt();
        } else if (command instanceof RecordActivityResultCommand c) {
            return c.observedAt();
        } else if (command instanceof RequestCancellationCommand c) {
            return c.requestedAt();
        } else if (command instanceof ResolveManualReviewCommand c) {
            return c.resolvedAt();
        } else if (command instanceof RetryActivityCommand c) {
            return c.requestedAt();
        } else if (command instanceof RecordProviderNotificationCommand c) {
            return c.receivedAt();
        } else if (command instanceof RenewLeaseCommand c) {
            return c.observedAt();
        } else if (command instanceof io.durablecheckout.api.command.CapturePaymentCommand c) {
            return c.requestedAt();
        } else if (command instanceof io.durablecheckout.api.command.RefundPaymentCommand c) {
            return c.requestedAt();
        } else if (command instanceof io.durablecheckout.api.command.SettleHoldCommand c) {
            return c.requestedAt();
        } else if (command instanceof io.durablecheckout.api.command.RearmOverdueTimersCommand c) {
            return c.observedAt();
        }
        throw new IllegalArgumentException("unknown command " + command.getClass().getName());
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> toMap(Object value) {
        return MAPPER.convertValue(value, LinkedHashMap.class);
    }

    private static Map<String, Class<?>> byName(Class<?>... types) {
        return Arrays.stream(types).collect(Collectors.toUnmodifiableMap(Class::getSimpleName, Function.identity()));
    }
}
