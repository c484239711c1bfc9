package io.durablecheckout.orchestrator.saga;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.checkout.CheckoutCancellationRequestedEvent;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.RenewLeaseCommand;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.eventhandling.Timestamp;
import org.axonframework.modelling.saga.EndSaga;
import org.axonframework.modelling.saga.SagaEventHandler;
import org.axonframework.modelling.saga.SagaLifecycle;
import org.axonframework.modelling.saga.StartSaga;
import org.axonframework.spring.stereotype.Saga;

import java.time.Instant;

/**
 * The process manager between the activity services and the Checkout aggregate: it turns each service's result
 * event into a command on the checkout it belongs to. Every decision (next step, compensation, retry, fencing) is
 * the aggregate's; the saga only routes, so it holds no state but its association.
 * <p>
 * The command runs in the saga's own unit of work and database transaction: the result is consumed if and only if
 * the aggregate recorded it. A failure propagates and the batch is retried.
 * <p>
 * A completed checkout ends its saga (its history is closed unless someone cancels); a later cancellation starts a
 * new one that lives until the compensations end in {@code cancelled}.
 */
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
@Saga
public class CheckoutSaga {

    public static final String ASSOCIATION = "checkoutId";
    /** The name of this saga's event processor: Axon's default for it (the class name and "Processor"). */
    public static final String PROCESSOR = "CheckoutSagaProcessor";

    private String checkoutId;
    private boolean cancellationRequested;

    @StartSaga
    @SagaEventHandler(associationProperty = ASSOCIATION)
    public void on(CheckoutCreatedEvent event) {
        checkoutId = event.checkoutId().value();
    }

    @StartSaga
    @SagaEventHandler(associationProperty = ASSOCIATION)
    public void on(CheckoutCancellationRequestedEvent event) {
        checkoutId = event.checkoutId().value();
        cancellationRequested = true;
    }

    @SagaEventHandler(associationProperty = ASSOCIATION)
    public void on(ActivityResultEvent result, @Timestamp Instant publishedAt, CommandGateway commands) {
        if (result instanceof StaleOwnerRejectedEvent) {
            return; // the resource already refused the stale owner; nothing for the checkout to decide
        }
        commands.sendAndWait(new RecordActivityResultCommand(result.checkoutId(), result, publishedAt));
    }

    @SagaEventHandler(associationProperty = ASSOCIATION)
    public void on(ActivityHeartbeatEvent heartbeat, @Timestamp Instant publishedAt, CommandGateway commands) {
        commands.sendAndWait(new RenewLeaseCommand(heartbeat.checkoutId(), heartbeat, publishedAt));
    }

    @SagaEventHandler(associationProperty = ASSOCIATION)
    public void on(CheckoutCompletedEvent event) {
        if (!cancellationRequested) {
            SagaLifecycle.end(); // otherwise a refund follows in the same history: keep routing its results
        }
    }

    @EndSaga
    @SagaEventHandler(associationProperty = ASSOCIATION)
    public void on(CheckoutCancelledEvent event) {
        // compensations are done
    }

    public String checkoutId() {
        return checkoutId;
    }
}
