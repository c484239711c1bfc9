package io.durablecheckout.orchestrator.saga;

import io.durablecheckout.orchestrator.checkout.WorkflowPolicy;
import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
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
import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.activity.StockReleaseSucceededEvent;
import io.durablecheckout.api.activity.StockReservationRejectedEvent;
import io.durablecheckout.api.activity.StockReservationSucceededEvent;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.CheckoutCancellationRequestedEvent;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.eventhandling.PropagatingErrorHandler;
import org.axonframework.test.FixtureExecutionException;
import org.axonframework.test.saga.SagaTestFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The saga only routes: each activity result for its checkout becomes a {@link RecordActivityResultCommand} stamped
 * with the event's own timestamp (the fixture stamps published events with its {@code currentTime()}); the aggregate
 * decides everything else. It lives from creation until completion, or, once a cancellation is requested, until the
 * checkout is cancelled.
 */
class CheckoutSagaTest {

    private static final CheckoutId ID = new CheckoutId("chk-0001");
    private static final String AGGREGATE = ID.value();
    private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
    private static final FencingToken T1 = FencingToken.first();

    private SagaTestFixture<CheckoutSaga> fixture;

    @BeforeEach
    void setUp() {
        fixture = new SagaTestFixture<>(CheckoutSaga.class);
    }

    private static CheckoutCreatedEvent created() {
        return new CheckoutCreatedEvent(ID, new TenantId("tenant-a"), List.of(new LineItem(new Sku("SKU-RED-MUG"), 2)),
                new Money(2_500, "EUR"), "pm_tok_visa", "ada@example.test", "idem-1", "fp-1", T0,
                WorkflowPolicy.defaults().recorded());
    }

    private static CheckoutCancellationRequestedEvent cancellationRequested() {
        return new CheckoutCancellationRequestedEvent(ID, CancellationReason.CUSTOMER_REQUEST, "changed my mind");
    }

    private static OperationId op(Step step) {
        return OperationId.of(ID, step);
    }

    /** One result of every kind the aggregate decides on (all but the resource's own stale-owner refusal). */
    static Stream<ActivityResultEvent> routedResults() {
        return Stream.of(
                new StockReservationSucceededEvent(ID, op(Step.RESERVE_STOCK), T1),
                new StockReservationRejectedEvent(ID, op(Step.RESERVE_STOCK), T1, CancellationReason.OUT_OF_STOCK,
                        "SKU-RED-MUG"),
                new StockReleaseSucceededEvent(ID, op(Step.RELEASE_STOCK), T1),
                new PaymentAuthorizationSucceededEvent(ID, op(Step.AUTHORIZE_PAYMENT), T1, "psp-auth-42"),
                new PaymentAuthorizationDeclinedEvent(ID, op(Step.AUTHORIZE_PAYMENT), T1, "insufficient funds"),
                new PaymentAuthorizationOutcomeUnknownEvent(ID, op(Step.AUTHORIZE_PAYMENT), T1, "provider timeout"),
                new PaymentLookupAnsweredEvent(ID, op(Step.RECONCILE_PAYMENT), T1, op(Step.AUTHORIZE_PAYMENT),
                        PaymentLookupOutcome.PENDING, null, null),
                new PaymentVoidSucceededEvent(ID, op(Step.VOID_PAYMENT), T1, "psp-void-1"),
                new PaymentRefundSucceededEvent(ID, op(Step.REFUND_PAYMENT), T1, "psp-refund-1"),
                new ReceiptDeliverySucceededEvent(ID, op(Step.SEND_RECEIPT), T1),
                new CancellationNoticeDeliverySucceededEvent(ID, op(Step.SEND_CANCELLATION_NOTICE), T1),
                new ActivityAttemptFailedEvent(ID, Step.RESERVE_STOCK, op(Step.RESERVE_STOCK), T1, "connection reset"));
    }

    @Test
    void a_created_checkout_starts_a_saga_associated_with_its_id() {
        fixture.givenNoPriorActivity()
                .whenAggregate(AGGREGATE).publishes(created())
                .expectActiveSagas(1)
                .expectAssociationWith(CheckoutSaga.ASSOCIATION, ID.value())
                .expectNoDispatchedCommands();
    }

    @ParameterizedTest
    @MethodSource("routedResults")
    void each_result_for_the_checkout_is_recorded_on_it_with_the_events_timestamp(ActivityResultEvent result) {
        fixture.givenCurrentTime(T0)
                .andThenAggregate(AGGREGATE).published(created())
                .whenPublishingA(result)
                .expectSuccessfulHandlerExecution()
                .expectDispatchedCommands(new RecordActivityResultCommand(ID, result, T0))
                .expectActiveSagas(1);
    }

    @Test
    void observed_at_is_when_the_result_was_published_not_when_the_saga_started() throws Exception {
        ActivityResultEvent result = new StockReservationSucceededEvent(ID, op(Step.RESERVE_STOCK), T1);
        fixture.givenCurrentTime(T0)
                .andThenAggregate(AGGREGATE).published(created())
                .andThenTimeElapses(Duration.ofSeconds(7))
                .whenPublishingA(result)
                .expectDispatchedCommands(new RecordActivityResultCommand(ID, result, T0.plusSeconds(7)));
        assertThat(fixture.currentTime()).isEqualTo(T0.plusSeconds(7));
    }

    @Test
    void a_resource_refusing_a_stale_owner_is_not_routed() {
        fixture.givenCurrentTime(T0)
                .andThenAggregate(AGGREGATE).published(created())
                .whenPublishingA(new StaleOwnerRejectedEvent(ID, Step.RESERVE_STOCK, op(Step.RESERVE_STOCK), T1,
                        new FencingToken(2), "inventory"))
                .expectSuccessfulHandlerExecution()
                .expectNoDispatchedCommands()
                .expectActiveSagas(1);
    }

    @Test
    void a_result_for_another_checkout_is_not_routed_by_this_saga() {
        CheckoutId other = new CheckoutId("chk-0002");
        fixture.givenAggregate(AGGREGATE).published(created())
                .whenPublishingA(new StockReservationSucceededEvent(other, OperationId.of(other, Step.RESERVE_STOCK), T1))
                .expectNoDispatchedCommands();
    }

    @Test
    void a_completed_checkout_ends_its_saga() {
        fixture.givenAggregate(AGGREGATE).published(created())
                .whenAggregate(AGGREGATE).publishes(new CheckoutCompletedEvent(ID))
                .expectActiveSagas(0)
                .expectNoDispatchedCommands();
    }

    @Test
    void a_result_arriving_after_completion_finds_no_saga() {
        fixture.givenAggregate(AGGREGATE).published(created(), new CheckoutCompletedEvent(ID))
                .whenPublishingA(new ReceiptDeliverySucceededEvent(ID, op(Step.SEND_RECEIPT), T1))
                .expectNoDispatchedCommands()
                .expectActiveSagas(0);
    }

    @Test
    void completion_after_a_cancellation_request_keeps_the_saga_for_the_refund() {
        fixture.givenAggregate(AGGREGATE).published(created(), cancellationRequested())
                .whenAggregate(AGGREGATE).publishes(new CheckoutCompletedEvent(ID))
                .expectActiveSagas(1);
    }

    @Test
    void the_refund_result_after_such_a_completion_is_still_routed() {
        PaymentRefundSucceededEvent refunded = new PaymentRefundSucceededEvent(ID, op(Step.REFUND_PAYMENT), T1,
                "psp-refund-1");
        fixture.givenCurrentTime(T0)
                .andThenAggregate(AGGREGATE).published(created(), cancellationRequested(), new CheckoutCompletedEvent(ID))
                .whenPublishingA(refunded)
                .expectDispatchedCommands(new RecordActivityResultCommand(ID, refunded, T0));
    }

    @Test
    void a_cancellation_request_on_a_live_saga_does_not_start_a_second_one() {
        fixture.givenAggregate(AGGREGATE).published(created())
                .whenAggregate(AGGREGATE).publishes(cancellationRequested())
                .expectActiveSagas(1);
    }

    @Test
    void a_cancelled_checkout_ends_its_saga() {
        fixture.givenAggregate(AGGREGATE).published(created())
                .whenAggregate(AGGREGATE).publishes(new CheckoutCancelledEvent(ID, CancellationReason.OUT_OF_STOCK,
                        "SKU-RED-MUG"))
                .expectActiveSagas(0);
    }

    @Test
    void a_cancellation_requested_on_a_completed_checkout_starts_a_new_saga() {
        fixture.givenAggregate(AGGREGATE).published(created(), new CheckoutCompletedEvent(ID))
                .whenAggregate(AGGREGATE).publishes(cancellationRequested())
                .expectActiveSagas(1)
                .expectAssociationWith(CheckoutSaga.ASSOCIATION, ID.value());
    }

    @Test
    void the_new_saga_routes_the_compensation_results() {
        PaymentRefundSucceededEvent refunded = new PaymentRefundSucceededEvent(ID, op(Step.REFUND_PAYMENT), T1,
                "psp-refund-1");
        fixture.givenCurrentTime(T0)
                .andThenAggregate(AGGREGATE).published(created(), new CheckoutCompletedEvent(ID), cancellationRequested())
                .whenPublishingA(refunded)
                .expectDispatchedCommands(new RecordActivityResultCommand(ID, refunded, T0));
    }

    @Test
    void the_new_saga_ends_when_the_checkout_is_cancelled() {
        fixture.givenAggregate(AGGREGATE).published(created(), new CheckoutCompletedEvent(ID), cancellationRequested())
                .whenAggregate(AGGREGATE).publishes(new CheckoutCancelledEvent(ID, CancellationReason.CUSTOMER_REQUEST,
                        "changed my mind"))
                .expectActiveSagas(0);
    }

    @Test
    void a_failed_command_propagates_so_the_result_is_delivered_again() {
        // As configured in production (EventProcessingConfiguration): the processor rolls back and retries the batch.
        fixture.registerListenerInvocationErrorHandler(PropagatingErrorHandler.instance());
        fixture.setCallbackBehavior((command, metaData) -> {
            throw new IllegalStateException("database unavailable");
        });
        fixture.givenAggregate(AGGREGATE).published(created());
        assertThatThrownBy(() -> fixture.whenPublishingA(
                new StockReservationSucceededEvent(ID, op(Step.RESERVE_STOCK), T1)))
                .isInstanceOf(FixtureExecutionException.class)
                .hasRootCauseInstanceOf(IllegalStateException.class);
    }
}
