package io.durablecheckout.orchestrator.deadletter;

import io.durablecheckout.activities.PoisonInputException;
import io.durablecheckout.activities.Savepoints;
import io.durablecheckout.api.activity.ReceiptDeliverySucceededEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.messaging.deadletter.GenericDeadLetter;
import org.axonframework.messaging.deadletter.InMemorySequencedDeadLetterQueue;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchRuntimeException;

/** Which failures park an event and which fail the batch for a retry (the fault matrix depends on the second). */
class PoisonEventPolicyTest {

    private final PoisonEventPolicy policy = new PoisonEventPolicy();
    private final EventMessage<?> event = GenericEventMessage.asEventMessage(new CheckoutCompletedEvent(new CheckoutId("co_1")));

    @Test
    void aValueThatDoesNotFitOrAConstraintOrABugIsParked() {
        assertThat(decide(new PoisonInputException("provider_reference is 300 characters, at most 255 fit"))
                .shouldEnqueue()).isTrue();
        assertThat(decide(new DataIntegrityViolationException("too long",
                new SQLException("value too long for type character varying(255)", "22001"))).shouldEnqueue()).isTrue();
        assertThat(decide(new IllegalStateException("unhandled result")).shouldEnqueue()).isTrue();
        assertThat(decide(new PoisonInputException("x")).enqueueCause().orElseThrow().getMessage()).isEqualTo("x");
    }

    @Test
    void losingTheDatabaseOrALockFailsTheBatchInstead() {
        assertThatThrownBy(() -> decide(new CannotGetJdbcConnectionException("pool closed",
                new SQLException("connection refused", "08001")))).isInstanceOf(CannotGetJdbcConnectionException.class);
        assertThatThrownBy(() -> decide(new RuntimeException(new SQLException("deadlock detected", "40P01"))))
                .isInstanceOf(RuntimeException.class);
        assertThatThrownBy(() -> decide(new RuntimeException(new SQLException("terminating connection", "57P01"))))
                .isInstanceOf(RuntimeException.class);
        assertThatThrownBy(() -> decide(new QueryTimeoutException("slow"))).isInstanceOf(QueryTimeoutException.class);
    }

    @Test
    void anIntentThatFailedOutsideASavepointFailsTheBatchSoItsRetryRunsGuarded() {
        Savepoints savepoints = new Savepoints(new org.springframework.jdbc.datasource.DriverManagerDataSource());
        TransactionSynchronizationManager.setActualTransactionActive(true); // as inside a processor's batch
        RuntimeException failure;
        try {
            assertThat(savepoints.guarded()).isFalse();
            failure = catchRuntimeException(() -> savepoints.run(() -> {
                throw new PoisonInputException("provider_reference is 300 characters, at most 255 fit");
            }));
        } finally {
            TransactionSynchronizationManager.setActualTransactionActive(false);
        }
        assertThat(failure).isInstanceOf(Savepoints.RetryUnderSavepointException.class)
                .hasCauseInstanceOf(PoisonInputException.class);
        assertThat(savepoints.guarded()).isTrue();
        // not parked as it is: the batch (perhaps aborted, perhaps holding the intent's partial writes) rolls back
        assertThatThrownBy(() -> decide(failure)).isSameAs(failure);
    }

    @Test
    void theSagaParksAResultThatFailsForGoodAndRetriesTheRest() throws Exception {
        InMemorySequencedDeadLetterQueue<EventMessage<?>> queue = InMemorySequencedDeadLetterQueue.defaultQueue();
        SagaPoisonHandler handler = new SagaPoisonHandler(() -> queue);
        EventMessage<?> result = GenericEventMessage.asEventMessage(new ReceiptDeliverySucceededEvent(
                new CheckoutId("co_2"), OperationId.of(new CheckoutId("co_2"), Step.SEND_RECEIPT), FencingToken.first()));

        handler.onError(new IllegalStateException("cannot load aggregate"), result, null);

        assertThat(queue.contains("co_2")).isTrue();
        assertThatThrownBy(() -> handler.onError(new RuntimeException(new SQLException("gone", "08006")), result, null))
                .isInstanceOf(RuntimeException.class);
        assertThatThrownBy(() -> handler.onError(new IllegalStateException("saga store"), event, null))
                .isInstanceOf(IllegalStateException.class); // not a result: nothing to park, the batch retries
        assertThat(queue.size()).isEqualTo(1);
    }

    private org.axonframework.messaging.deadletter.EnqueueDecision<EventMessage<?>> decide(Exception e) {
        return policy.decide(new GenericDeadLetter<>("co_1", event, e), e);
    }
}
