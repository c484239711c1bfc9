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
import io.durablecheckout.api.checkout.PaymentCaptureFailedEvent;
import io.durablecheckout.api.checkout.PaymentCapturedEvent;
import io.durablecheckout.api.checkout.PaymentOperationOrderedEvent;
import io.durablecheckout.api.checkout.PaymentRefundedEvent;
import io.durablecheckout.api.checkout.PaymentVoidedEvent;
import io.durablecheckout.api.values.OperationId;
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
 * new one that lives until the compensations end in {@code cancelled}, an operator's payment operation one that lives
 * until the operation concludes.
 */
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
@Saga
public class CheckoutSaga {

    public static final String ASSOCIATION = "checkoutId";
    /** The name of this saga's event processor: Axon's default for it (the class name and "Processor"). */
    public static final String PROCESSOR = "CheckoutSagaProcessor";

    private String checkoutId;
    private boolean cancellationRequested;
    /** The operator's payment operation on a completed checkout this saga routes results for, until it concludes. */
    private String operatorOperation;

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

    /** An operator's payment operation on a completed checkout (decision 130): routed until it concludes. */
    @StartSaga
    @SagaEventHandler(associationProperty = ASSOCIATION)
    public void on(PaymentOperationOrderedEvent event) {
        checkoutId = event.checkoutId().value();
        operatorOperation = event.operationId().value();
    }

    @SagaEventHandler(associationProperty = ASSOCIATION)
    public void on(PaymentRefundedEvent event) {
        concluded(event.operationId());
    }

    @SagaEventHandler(associationProperty = ASSOCIATION)
    public void on(PaymentCapturedEvent event) {
        concluded(event.operationId());
    }

    @SagaEventHandler(associationProperty = ASSOCIATION)
    public void on(PaymentCaptureFailedEvent event) {
        concluded(event.operationId());
    }

    @SagaEventHandler(associationProperty = ASSOCIATION)
    public void on(PaymentVoidedEvent event) {
        concluded(event.operationId());
    }

    /** The operator's operation concluded: nothing more to route, unless a cancellation's compensations follow. */
    private void concluded(OperationId operationId) {
        if (operationId.value().equals(operatorOperation) && !cancellationRequested) {
            SagaLifecycle.end();
        }
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
