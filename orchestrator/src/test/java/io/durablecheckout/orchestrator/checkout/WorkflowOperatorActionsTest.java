package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.CheckoutCancellationRequestedEvent;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.ManualReviewResolvedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeDisputedEvent;
import io.durablecheckout.api.checkout.PaymentRefundRequestedEvent;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Workflow.OperatorAction;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AMOUNT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ID;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.T0;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.TENANT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.completedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.concat;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.createdHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.lease;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.op;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservedHistory;
import static io.durablecheckout.orchestrator.checkout.Workflow.OperatorAction.CANCEL;
import static io.durablecheckout.orchestrator.checkout.Workflow.OperatorAction.RESOLVE_AUTHORIZED;
import static io.durablecheckout.orchestrator.checkout.Workflow.OperatorAction.RESOLVE_DECLINED;
import static io.durablecheckout.orchestrator.checkout.Workflow.OperatorAction.RETRY;
import static org.assertj.core.api.Assertions.assertThat;

/** The operator actions the dashboard offers: only those the workflow's rules let change something. */
class WorkflowOperatorActionsTest {

    private static final CheckoutCancellationRequestedEvent CUSTOMER_CANCEL =
            new CheckoutCancellationRequestedEvent(ID, CancellationReason.CUSTOMER_REQUEST, "changed my mind");

    private static List<OperatorAction> actions(List<Object> history) {
        CheckoutFacts facts = CheckoutFacts.INITIAL;
        for (Object e : history) {
            facts = facts.evolve((CheckoutEvent) e);
        }
        return Workflow.operatorActions(facts);
    }

    private static ManualReviewRequiredEvent review(Step step) {
        return new ManualReviewRequiredEvent(ID, step, step.slug() + " blocked", "evidence");
    }

    @Test
    void nothing_before_the_checkout_exists() {
        assertThat(actions(List.of())).isEmpty();
    }

    @Test
    void a_running_checkout_can_only_be_cancelled() {
        assertThat(actions(createdHistory())).containsExactly(CANCEL);
    }

    @Test
    void once_a_cancellation_is_requested_outside_review_nothing_is_offered() {
        assertThat(actions(concat(createdHistory(), CUSTOMER_CANCEL))).isEmpty();
    }

    @Test
    void a_review_blocked_on_the_payment_outcome_offers_both_resolutions_retry_and_cancel() {
        assertThat(actions(concat(stockReservedHistory(), review(Step.RECONCILE_PAYMENT))))
                .containsExactly(RESOLVE_AUTHORIZED, RESOLVE_DECLINED, RETRY, CANCEL);
        assertThat(actions(concat(stockReservedHistory(), review(Step.AUTHORIZE_PAYMENT))))
                .containsExactly(RESOLVE_AUTHORIZED, RESOLVE_DECLINED, RETRY, CANCEL);
    }

    @Test
    void a_review_blocked_on_another_step_offers_no_resolution() {
        assertThat(actions(concat(createdHistory(), review(Step.RESERVE_STOCK)))).containsExactly(RETRY, CANCEL);
    }

    @Test
    void a_review_after_a_customers_cancellation_still_offers_the_operators_cancel() {
        assertThat(actions(concat(stockReservedHistory(), CUSTOMER_CANCEL, review(Step.RECONCILE_PAYMENT))))
                .containsExactly(RESOLVE_AUTHORIZED, RESOLVE_DECLINED, RETRY, CANCEL);
    }

    @Test
    void a_completed_checkout_offers_a_partial_refund_and_a_cancel_that_refunds() {
        assertThat(actions(completedHistory())).containsExactly(OperatorAction.REFUND, CANCEL);
    }

    @Test
    void a_completed_checkout_with_an_open_dispute_offers_its_resolution() {
        List<Object> disputed = concat(completedHistory(), new PaymentOutcomeDisputedEvent(ID,
                ManualResolution.AUTHORIZED, ManualResolution.DECLINED, "evt-1", "psp-1"));
        assertThat(actions(disputed)).containsExactly(RESOLVE_AUTHORIZED, RESOLVE_DECLINED, OperatorAction.REFUND,
                CANCEL);
        assertThat(actions(concat(disputed, new ManualReviewResolvedEvent(ID, ManualResolution.AUTHORIZED, null,
                "checked")))).containsExactly(OperatorAction.REFUND, CANCEL);
    }

    @Test
    void a_checkout_being_compensated_or_cancelled_offers_nothing() {
        List<Object> refunding = concat(completedHistory(), new CheckoutCancellationRequestedEvent(ID,
                        CancellationReason.OPERATOR_REQUEST, "refund"),
                new PaymentRefundRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                        lease(Step.REFUND_PAYMENT, 1, T0.plusSeconds(60))));
        assertThat(actions(refunding)).isEmpty();
        assertThat(actions(concat(createdHistory(), new CheckoutCancelledEvent(ID, CancellationReason.OUT_OF_STOCK,
                "SKU-1")))).isEmpty();
    }

    @Test
    void the_steps_read_in_workflow_order_forward_then_compensations_as_they_run() {
        assertThat(Workflow.stepsInOrder()).containsExactly(Step.RESERVE_STOCK, Step.AUTHORIZE_PAYMENT,
                Step.RECONCILE_PAYMENT, Step.CAPTURE_PAYMENT, Step.SEND_RECEIPT, Step.VOID_PAYMENT, Step.REFUND_PAYMENT, Step.RELEASE_STOCK,
                Step.SEND_CANCELLATION_NOTICE);
    }
}
