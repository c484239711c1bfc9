package io.durablecheckout.orchestrator.deadletter;

import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.EventMessageHandler;
import org.axonframework.eventhandling.ListenerInvocationErrorHandler;
import org.axonframework.messaging.deadletter.GenericDeadLetter;
import org.axonframework.messaging.deadletter.SequencedDeadLetterQueue;
import org.axonframework.messaging.deadletter.ThrowableCause;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Supplier;

/**
 * What a poison event means for the saga, which Axon gives no dead-letter queue (a saga's associations change from
 * event to event, so there is no sequence to hold back).
 * <p>
 * The saga only routes: an activity's result or heartbeat becomes a command on its checkout, and every decision is
 * the aggregate's, fenced by token. So a result that fails the same way on every retry (the aggregate cannot handle
 * it, or cannot be loaded) is parked here, in the same table as the processors' dead letters (processing group
 * CheckoutSagaProcessor, sequence = checkout id), and the saga moves on: the other
 * checkouts keep going, and the parked checkout is not silently lost, because the lease of the step whose result was
 * parked still runs out, is re-issued, and after {@code max-attempts} leases the checkout goes to manual review
 * (while every parked result is listed, with its cause, under /api/v1/operator/dead-letters). A later result of the
 * same checkout is not held back: results of one checkout are independent reports, each checked against the lease in
 * force, so order between them decides nothing.
 * <p>
 * Everything else (a failure of the database, the saga store, a concurrency conflict, any event other than a result
 * or heartbeat) propagates as before: the batch rolls back and is retried with back-off.
 */
public final class SagaPoisonHandler implements ListenerInvocationErrorHandler {

    private static final Logger log = LoggerFactory.getLogger(SagaPoisonHandler.class);

    private final Supplier<SequencedDeadLetterQueue<EventMessage<?>>> queue;

    public SagaPoisonHandler(Supplier<SequencedDeadLetterQueue<EventMessage<?>>> queue) {
        this.queue = queue;
    }

    @Override
    public void onError(Exception exception, EventMessage<?> event, EventMessageHandler eventHandler) throws Exception {
        String checkoutId = checkoutOf(event.getPayload());
        if (checkoutId == null || PoisonEventPolicy.isTransient(exception)) {
            throw exception;
        }
        log.warn("Parking {} of checkout {} in the saga's dead letters: {}", event.getPayloadType().getSimpleName(),
                checkoutId, exception.toString());
        queue.get().enqueue(checkoutId, new GenericDeadLetter<>(checkoutId, event,
                new ThrowableCause(exception.getClass().getName(), PoisonEventPolicy.describe(exception))));
    }

    private static String checkoutOf(Object payload) {
        if (payload instanceof ActivityResultEvent result) {
            return result.checkoutId().value();
        }
        if (payload instanceof ActivityHeartbeatEvent heartbeat) {
            return heartbeat.checkoutId().value();
        }
        return null;
    }
}
