package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.CustomerActionRequiredEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeUnknownEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.command.RearmOverdueTimersCommand;
import io.durablecheckout.api.values.Step;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AUTHORIZED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ID;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RESERVED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.T0;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.awaitingCaptureHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.capturePendingHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.completedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.concat;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.holdTimer;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.op;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.token;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.given;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.leaseTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.lookupTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.retryTimer;

/**
 * The timer watchdog's command (decision 135): a checkout found waiting past its next deadline with no deadline row
 * schedules again every timer its state still waits for, and appends nothing; the timers then decide as they would have.
 */
class CheckoutDeciderRearmTest {

    private static final Instant NOW = T0.plusSeconds(600);

    private static RearmOverdueTimersCommand rearm() {
        return new RearmOverdueTimersCommand(ID, NOW);
    }

    @Test
    void a_step_in_flight_gets_its_lease_expiry_back_at_the_lease_end() {
        given(stockReservedHistory()).when(rearm()).noEvents().cancelsNothing()
                .schedules(leaseTimer(Step.AUTHORIZE_PAYMENT, 1, RESERVED_AT));
    }

    @Test
    void a_step_waiting_to_be_tried_again_gets_its_retry_now_and_the_retry_issues_the_next_attempt() {
        Instant retryAt = RESERVED_AT.plusSeconds(20);
        DeciderSpec waiting = given(concat(stockReservedHistory(), new ActivityRetryScheduledEvent(ID,
                Step.AUTHORIZE_PAYMENT, op(Step.AUTHORIZE_PAYMENT), 1, retryAt, "provider unavailable")));
        waiting.when(rearm()).noEvents().schedules(retryTimer(Step.AUTHORIZE_PAYMENT, 1, NOW));
        waiting.whenFired(retryTimer(Step.AUTHORIZE_PAYMENT, 1, NOW))
                .events(CheckoutScenario.authorizationRequested(2, NOW));
    }

    @Test
    void an_unknown_payment_gets_its_scheduled_lookup_now() {
        given(concat(stockReservedHistory(),
                new PaymentOutcomeUnknownEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), "provider timeout"),
                new PaymentReconciliationScheduledEvent(ID, op(Step.AUTHORIZE_PAYMENT), 1, AUTHORIZED_AT,
                        "provider timeout"),
                new PaymentReconciliationScheduledEvent(ID, op(Step.AUTHORIZE_PAYMENT), 2, AUTHORIZED_AT,
                        "PENDING")))
                .when(rearm()).noEvents().schedules(lookupTimer(2, NOW));
    }

    @Test
    void a_deferred_capture_gets_its_hold_expiry_back_at_the_recorded_lapse() {
        given(awaitingCaptureHistory()).when(rearm()).noEvents().schedules(holdTimer(AUTHORIZED_AT));
    }

    @Test
    void a_capture_in_flight_gets_its_lease_and_nothing_for_a_hold_it_does_not_keep() {
        given(capturePendingHistory()).when(rearm()).noEvents()
                .schedules(leaseTimer(Step.CAPTURE_PAYMENT, 1, AUTHORIZED_AT));
    }

    @Test
    void a_payment_waiting_for_the_customer_gets_the_customers_time_back_at_its_recorded_end() {
        Instant until = AUTHORIZED_AT.plusSeconds(900);
        given(concat(stockReservedHistory(), new CustomerActionRequiredEvent(ID, op(Step.AUTHORIZE_PAYMENT),
                token(1), "{\"type\":\"redirect_to_url\"}", "pi_3ds", until)))
                .when(rearm()).noEvents()
                .schedules(Decision.Timer.customerAction(until));
    }

    @Test
    void a_finished_checkout_waits_for_nothing() {
        given(completedHistory()).when(rearm()).nothing();
    }
}
