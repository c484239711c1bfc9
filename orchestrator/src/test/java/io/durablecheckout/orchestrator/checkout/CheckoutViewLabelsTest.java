package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.ManualReviewResolvedEvent;
import io.durablecheckout.api.checkout.OperatorRetryRequestedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeUnknownEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.readmodel.CheckoutView;
import io.durablecheckout.orchestrator.readmodel.CheckoutViewFolder;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AUTHORIZED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ID;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.TENANT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.concat;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.lease;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.token;
import static org.assertj.core.api.Assertions.assertThat;

/** What the read model says after a review of an unknown payment (issue 52's labels). */
class CheckoutViewLabelsTest {

    private static final OperationId AUTHORIZATION = new OperationId("chk-0001/authorize-payment");

    private static CheckoutView fold(List<Object> history) {
        CheckoutView v = null;
        long seq = 0;
        Instant at = AUTHORIZED_AT;
        for (Object e : history) {
            at = at.plusSeconds(1);
            v = CheckoutViewFolder.fold(v, (CheckoutEvent) e, seq++, at);
        }
        return v;
    }

    private static List<Object> reviewAfterPendingLookups() {
        return concat(stockReservedHistory(),
                new PaymentOutcomeUnknownEvent(ID, AUTHORIZATION, token(1), "provider timeout"),
                new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 1, AUTHORIZED_AT, "provider timeout"),
                new PaymentReconciliationRequestedEvent(ID, TENANT, AUTHORIZATION, 1,
                        lease(Step.RECONCILE_PAYMENT, 1, AUTHORIZED_AT)),
                new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 2, AUTHORIZED_AT, "PENDING"),
                new PaymentReconciliationRequestedEvent(ID, TENANT, AUTHORIZATION, 2,
                        lease(Step.RECONCILE_PAYMENT, 2, AUTHORIZED_AT)),
                new ManualReviewRequiredEvent(ID, Step.RECONCILE_PAYMENT, "unknown after 2 lookups", "PENDING"));
    }

    @Test
    void after_an_operators_retry_the_lookups_evidence_stays_known() {
        CheckoutView v = fold(concat(reviewAfterPendingLookups(), new OperatorRetryRequestedEvent(ID,
                        Step.RECONCILE_PAYMENT),
                new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 3, AUTHORIZED_AT, "operator retry")));
        assertThat(v.waiting.known()).contains("reconcile-payment: PENDING", "an operator asked for more lookups")
                .doesNotContain("operator retry");
        assertThat(v.activities.get("reconcile-payment").lastOutcome).isEqualTo("PENDING");
    }

    @Test
    void an_operators_resolution_is_not_a_lookup_that_reported_authorized() {
        CheckoutView v = fold(concat(reviewAfterPendingLookups(),
                new ManualReviewResolvedEvent(ID, ManualResolution.AUTHORIZED, "psp-1", "seen"),
                new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-1")));
        assertThat(v.activities.get("reconcile-payment").lastOutcome)
                .isEqualTo("no lookup answer: authorized on other evidence");
    }

    @Test
    void a_lookup_that_answers_authorized_is_said_so() {
        CheckoutView v = fold(concat(reviewAfterPendingLookups().subList(0, stockReservedHistory().size() + 3),
                new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-1")));
        assertThat(v.activities.get("reconcile-payment").lastOutcome).isEqualTo("provider reported authorized");
    }

    @Test
    void the_payment_is_unknown_since_the_first_unknown_outcome() {
        CheckoutView v = fold(reviewAfterPendingLookups());
        // the unknown outcome is the first event after the reservation's history, folded one second apart
        assertThat(v.paymentUnknownSince).isEqualTo(AUTHORIZED_AT.plusSeconds(stockReservedHistory().size() + 1));
        assertThat(v.stateSince).isAfter(v.paymentUnknownSince);
    }
}
