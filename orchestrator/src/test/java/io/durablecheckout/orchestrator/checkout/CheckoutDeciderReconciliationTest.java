package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.checkout.CheckoutCancellationRequestedEvent;
import io.durablecheckout.api.activity.PaymentLookupAnsweredEvent;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.activity.StockReleaseSucceededEvent;
import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.CheckoutCancelledEvent;
import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.checkout.PaymentVoidRequestedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeDisputedEvent;
import io.durablecheckout.api.checkout.ProviderNotificationHeldEvent;
import io.durablecheckout.api.command.RecordProviderNotificationCommand;
import io.durablecheckout.api.checkout.ManualReviewResolvedEvent;
import io.durablecheckout.api.checkout.OperatorRetryRequestedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentDeclinedEvent;
import io.durablecheckout.api.checkout.PaymentOutcomeUnknownEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationScheduledEvent;
import io.durablecheckout.api.checkout.StockReleaseRequestedEvent;
import io.durablecheckout.api.checkout.StockReleasedEvent;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Deadlines.ReconciliationDue;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AUTHORIZED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AMOUNT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ID;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.confirmed;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.captureRequested;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.MAX_LOOKUPS;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.PAYMENT_LEASE;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RECONCILIATION_INITIAL;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RESERVED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.T0;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.TENANT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.RETRY_INITIAL;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.attemptFailed;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.authorizationRequested;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.authorizationUnknown;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.concat;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.lease;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.lookupAnswered;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.op;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.receiptRequested;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.record;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservationSucceeded;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.token;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.given;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.leaseTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.lookupTimer;
import static io.durablecheckout.orchestrator.checkout.DeciderSpec.started;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An unknown payment outcome is never a decline: the checkout asks the provider later, always under the ORIGINAL
 * authorization operation id, backs off exponentially, and after {@value CheckoutScenario#MAX_LOOKUPS} inconclusive
 * answers hands the decision to an operator.
 */
class CheckoutDeciderReconciliationTest {

    /** The authorization's idempotency key: every lookup names it; no lookup ever mints a new one. */
    private static final OperationId AUTHORIZATION = new OperationId("chk-0001/authorize-payment");
    private static final Duration ANSWER_AFTER = Duration.ofSeconds(1);

    // Lookup k is granted at lookupAt(k) and answered ANSWER_AFTER later; the wait before lookup k+1 doubles.

    private static Instant lookupAt(int k) {
        Instant at = AUTHORIZED_AT.plus(RECONCILIATION_INITIAL);
        for (int i = 2; i <= k; i++) {
            at = at.plus(ANSWER_AFTER).plus(RECONCILIATION_INITIAL.multipliedBy(1L << (i - 1)));
        }
        return at;
    }

    private static Instant answeredAt(int k) {
        return lookupAt(k).plus(ANSWER_AFTER);
    }

    private static PaymentReconciliationRequestedEvent reconciliationRequested(int k) {
        return new PaymentReconciliationRequestedEvent(ID, TENANT, AUTHORIZATION, k,
                lease(Step.RECONCILE_PAYMENT, k, lookupAt(k)));
    }

    /** The authorization timed out: lookup 1 is scheduled, not yet granted. */
    private static List<Object> outcomeUnknownHistory() {
        return concat(stockReservedHistory(),
                new PaymentOutcomeUnknownEvent(ID, AUTHORIZATION, token(1), "provider timeout"),
                new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 1, lookupAt(1), "provider timeout"));
    }

    /** Lookups 1..n were granted, the first n - 1 answered PENDING; lookup n is in flight. */
    private static List<Object> lookupInFlight(int n) {
        List<Object> history = new ArrayList<>(outcomeUnknownHistory());
        history.add(reconciliationRequested(1));
        for (int k = 2; k <= n; k++) {
            history.add(new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, k, lookupAt(k), "PENDING"));
            history.add(reconciliationRequested(k));
        }
        return history;
    }

    private static List<Object> manualReviewAfterLookups() {
        return concat(lookupInFlight(MAX_LOOKUPS), new ManualReviewRequiredEvent(ID, Step.RECONCILE_PAYMENT,
                "payment outcome still unknown after 3 lookups",
                "authorization operation chk-0001/authorize-payment; last answer PENDING; "
                        + "the provider may still authorize or decline it"));
    }

    @Test
    void the_lookup_schedule_of_these_tests_doubles() {
        assertThat(Duration.between(answeredAt(1), lookupAt(2))).isEqualTo(Duration.ofSeconds(4));
        assertThat(Duration.between(answeredAt(2), lookupAt(3))).isEqualTo(Duration.ofSeconds(8));
    }

    @Nested
    class UnknownOutcome {

        @Test
        void an_unknown_outcome_schedules_the_first_lookup() {
            Instant due = AUTHORIZED_AT.plus(RECONCILIATION_INITIAL);
            given(stockReservedHistory())
                    .when(record(authorizationUnknown(1), AUTHORIZED_AT))
                    .events(
                            new PaymentOutcomeUnknownEvent(ID, AUTHORIZATION, token(1), "provider timeout"),
                            new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 1, due, "provider timeout"))
                    .cancels(leaseTimer(Step.AUTHORIZE_PAYMENT, 1, RESERVED_AT))
                    .schedules(new Decision.Timer(Deadlines.RECONCILIATION_DUE, Step.RECONCILE_PAYMENT, null, 1, due));
            org.assertj.core.api.Assertions.assertThat(lookupTimer(1, due).payload())
                    .isEqualTo(new ReconciliationDue(1));
        }

        @Test
        void the_reconciliation_deadline_requests_a_lookup_under_the_original_authorization_operation_id() {
            Instant due = AUTHORIZED_AT.plus(RECONCILIATION_INITIAL);
            started()
                    .andDecided(
                            record(stockReservationSucceeded(1), RESERVED_AT),
                            record(authorizationUnknown(1), AUTHORIZED_AT))
                    .whenFired(lookupTimer(1, due))
                    .events(new PaymentReconciliationRequestedEvent(ID, TENANT,
                            new OperationId("chk-0001/authorize-payment"), 1,
                            new Lease(new OperationId("chk-0001/reconcile-payment"), 1, FencingToken.first(),
                                    due.plus(PAYMENT_LEASE))))
                    .cancelsNothing()
                    .schedules(leaseTimer(Step.RECONCILE_PAYMENT, 1, due));
        }

        @Test
        void a_lookup_timer_that_is_no_longer_the_scheduled_one_changes_nothing() {
            given(lookupInFlight(1))
                    .andDecided(record(lookupAnswered(1, PaymentLookupOutcome.PENDING, null), answeredAt(1)))
                    .whenFired(lookupTimer(1, lookupAt(1)))
                    .nothing();
        }

        @Test
        void a_lookup_timer_after_the_outcome_is_known_changes_nothing() {
            given(lookupInFlight(1))
                    .andDecided(record(lookupAnswered(1, PaymentLookupOutcome.AUTHORIZED, "psp-auth-77"),
                            answeredAt(1)))
                    .whenFired(lookupTimer(1, lookupAt(1)))
                    .nothing();
        }
    }

    @Nested
    class LookupAnswers {

        @Test
        void a_lookup_that_finds_the_authorization_confirms_the_checkout() {
            given(lookupInFlight(1))
                    .when(record(lookupAnswered(1, PaymentLookupOutcome.AUTHORIZED, "psp-auth-77"), answeredAt(1)))
                    .events(
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-auth-77"),
                            confirmed(answeredAt(1)),
                            captureRequested(1, answeredAt(1)));
        }

        @Test
        void a_lookup_that_finds_a_decline_releases_the_stock() {
            given(lookupInFlight(1))
                    .when(record(lookupAnswered(1, PaymentLookupOutcome.DECLINED, null), answeredAt(1)))
                    .events(
                            new PaymentDeclinedEvent(ID, AUTHORIZATION, token(1), "reconciliation: DECLINED"),
                            new StockReleaseRequestedEvent(ID, TENANT, op(Step.RESERVE_STOCK),
                                    lease(Step.RELEASE_STOCK, 1, answeredAt(1))));
        }

        @Test
        void a_lookup_that_finds_nothing_voids_the_operation_id_before_releasing_the_stock() {
            // a request still travelling to the provider must not authorize later: the void is its tombstone
            given(lookupInFlight(1))
                    .when(record(new PaymentLookupAnsweredEvent(ID, op(Step.RECONCILE_PAYMENT), token(1), AUTHORIZATION,
                            PaymentLookupOutcome.NOT_FOUND, null, "no such idempotency key"), answeredAt(1)))
                    .events(
                            new PaymentDeclinedEvent(ID, AUTHORIZATION, token(1),
                                    "reconciliation: NOT_FOUND (no such idempotency key)"),
                            new PaymentVoidRequestedEvent(ID, TENANT, AUTHORIZATION, AMOUNT,
                                    lease(Step.VOID_PAYMENT, 1, answeredAt(1))));
        }

        @Test
        void a_pending_answer_schedules_the_next_lookup_after_twice_the_wait() {
            Instant due = answeredAt(1).plus(RECONCILIATION_INITIAL.multipliedBy(2));
            given(lookupInFlight(1))
                    .when(record(lookupAnswered(1, PaymentLookupOutcome.PENDING, null), answeredAt(1)))
                    .events(new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 2, due, "PENDING"))
                    .cancels(leaseTimer(Step.RECONCILE_PAYMENT, 1, lookupAt(1)))
                    .schedules(lookupTimer(2, due));
        }

        @Test
        void each_further_pending_answer_doubles_the_wait_again() {
            Instant due = answeredAt(2).plus(RECONCILIATION_INITIAL.multipliedBy(4));
            given(lookupInFlight(2))
                    .when(record(lookupAnswered(2, PaymentLookupOutcome.PENDING, null), answeredAt(2)))
                    .events(new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 3, due, "PENDING"))
                    .schedules(lookupTimer(3, due));
        }

        @Test
        void a_failed_lookup_counts_as_inconclusive() {
            Instant due = answeredAt(1).plus(RECONCILIATION_INITIAL.multipliedBy(2));
            given(lookupInFlight(1))
                    .when(record(new PaymentLookupAnsweredEvent(ID, op(Step.RECONCILE_PAYMENT), token(1), AUTHORIZATION,
                            PaymentLookupOutcome.LOOKUP_FAILED, null, "HTTP 503"), answeredAt(1)))
                    .events(new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 2, due,
                            "LOOKUP_FAILED (HTTP 503)"));
        }

        @Test
        void the_next_lookup_is_a_new_lease_of_the_reconcile_step_that_still_names_the_original_authorization() {
            Instant due = answeredAt(1).plus(RECONCILIATION_INITIAL.multipliedBy(2));
            given(lookupInFlight(1))
                    .andDecided(record(lookupAnswered(1, PaymentLookupOutcome.PENDING, null), answeredAt(1)))
                    .whenFired(lookupTimer(2, due))
                    .events(new PaymentReconciliationRequestedEvent(ID, TENANT, AUTHORIZATION, 2,
                            new Lease(new OperationId("chk-0001/reconcile-payment"), 2, new FencingToken(2),
                                    due.plus(PAYMENT_LEASE))))
                    .schedules(leaseTimer(Step.RECONCILE_PAYMENT, 2, due));
        }

        @Test
        void an_answer_to_an_earlier_lookup_is_rejected() {
            given(lookupInFlight(2))
                    .when(record(lookupAnswered(1, PaymentLookupOutcome.DECLINED, null), answeredAt(2)))
                    .events(new ActivityResultRejectedEvent(ID,
                            Step.RECONCILE_PAYMENT, op(Step.RECONCILE_PAYMENT), token(1), token(2)));
        }

        @Test
        void a_failed_lookup_attempt_is_retried_for_the_same_lookup() {
            Instant failedAt = answeredAt(1);
            given(lookupInFlight(1))
                    .when(record(attemptFailed(Step.RECONCILE_PAYMENT, 1), failedAt))
                    .events(new ActivityRetryScheduledEvent(ID, Step.RECONCILE_PAYMENT,
                            op(Step.RECONCILE_PAYMENT), 1, failedAt.plus(RETRY_INITIAL),
                            "connection reset"));
        }

        @Test
        void after_the_last_allowed_lookup_stays_inconclusive_an_operator_decides() {
            given(lookupInFlight(MAX_LOOKUPS))
                    .when(record(lookupAnswered(MAX_LOOKUPS, PaymentLookupOutcome.PENDING, null),
                            answeredAt(MAX_LOOKUPS)))
                    .events(new ManualReviewRequiredEvent(ID, Step.RECONCILE_PAYMENT,
                            "payment outcome still unknown after 3 lookups",
                            "authorization operation chk-0001/authorize-payment; last answer PENDING; "
                                    + "the provider may still authorize or decline it"))
                    .cancels(leaseTimer(Step.RECONCILE_PAYMENT, MAX_LOOKUPS, lookupAt(MAX_LOOKUPS)))
                    .schedulesNothing();
        }
    }

    /** The provider's webhook: evidence while the outcome is unknown, nothing when known, review when contradicting. */
    @Nested
    class ProviderNotifications {

        private final Instant receivedAt = AUTHORIZED_AT.plusSeconds(3);

        private RecordProviderNotificationCommand notification(PaymentLookupOutcome outcome, String id) {
            return new RecordProviderNotificationCommand(ID, AUTHORIZATION, outcome, "psp-77", id, receivedAt);
        }

        @Test
        void while_the_outcome_is_unknown_an_authorized_notification_confirms_the_checkout() {
            given(outcomeUnknownHistory())
                    .when(notification(PaymentLookupOutcome.AUTHORIZED, "evt-1"))
                    .events(new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-77"),
                            confirmed(receivedAt), captureRequested(1, receivedAt));
        }

        @Test
        void while_the_outcome_is_unknown_a_declined_notification_releases_the_stock() {
            given(outcomeUnknownHistory())
                    .when(notification(PaymentLookupOutcome.DECLINED, "evt-1"))
                    .events(new PaymentDeclinedEvent(ID, AUTHORIZATION, token(1), "provider notification evt-1"),
                            new StockReleaseRequestedEvent(ID, TENANT, op(Step.RESERVE_STOCK),
                                    lease(Step.RELEASE_STOCK, 1, receivedAt)));
        }

        @Test
        void a_notification_that_agrees_with_the_recorded_outcome_changes_nothing() {
            given(concat(outcomeUnknownHistory(),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-77")))
                    .when(notification(PaymentLookupOutcome.AUTHORIZED, "evt-2"))
                    .nothing();
        }

        @Test
        void a_notification_that_contradicts_the_recorded_outcome_is_not_applied_but_disputed() {
            given(concat(outcomeUnknownHistory(),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-77")))
                    .when(notification(PaymentLookupOutcome.DECLINED, "evt-3"))
                    .events(new PaymentOutcomeDisputedEvent(ID, ManualResolution.AUTHORIZED,
                            ManualResolution.DECLINED, "evt-3", "psp-77"));
        }

        @Test
        void an_operator_closes_a_dispute_without_rewinding_the_workflow() {
            given(concat(outcomeUnknownHistory(),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-77"),
                            new PaymentOutcomeDisputedEvent(ID, ManualResolution.AUTHORIZED, ManualResolution.DECLINED,
                                    "evt-3", "psp-77")))
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, "psp-77",
                            "provider dashboard shows the capture", null, receivedAt))
                    .events(new ManualReviewResolvedEvent(ID, ManualResolution.AUTHORIZED, "psp-77",
                            "provider dashboard shows the capture"))
                    .cancelsNothing()
                    .schedulesNothing();
        }

        @Test
        void a_closed_dispute_cannot_be_resolved_again() {
            given(concat(outcomeUnknownHistory(),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-77"),
                            new PaymentOutcomeDisputedEvent(ID, ManualResolution.AUTHORIZED, ManualResolution.DECLINED,
                                    "evt-3", "psp-77"),
                            new ManualReviewResolvedEvent(ID, ManualResolution.AUTHORIZED, "psp-77", "checked")))
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, "psp-77", "again", null,
                            receivedAt))
                    .refused("only a checkout in manual review or with a disputed payment can be resolved");
        }

        @Test
        void a_notification_for_another_operation_is_refused() {
            given(outcomeUnknownHistory())
                    .when(new RecordProviderNotificationCommand(ID, new OperationId("other/authorize-payment"),
                            PaymentLookupOutcome.AUTHORIZED, "x", "evt-4", receivedAt))
                    .refused("a notification names this checkout's authorization")
                    .refusedWithMessage("No authorization other/authorize-payment in checkout chk-0001");
        }

        @Test
        void a_notification_before_any_authorization_is_refused() {
            given(CheckoutScenario.createdHistory())
                    .when(notification(PaymentLookupOutcome.AUTHORIZED, "evt-5"))
                    .refused("a notification names this checkout's authorization");
        }

        @Test
        void a_notification_that_reports_no_final_outcome_is_refused() {
            given(outcomeUnknownHistory())
                    .when(notification(PaymentLookupOutcome.PENDING, "evt-6"))
                    .refused("a notification reports a final outcome");
        }
    }

    @Nested
    class ManualReview {

        private final Instant resolvedAt = T0.plusSeconds(600);

        @Test
        void an_operator_resolving_as_authorized_confirms_the_checkout_under_the_original_authorization() {
            List<Object> history = manualReviewAfterLookups();
            long currentVersion = history.size() - 1; // the sequence number of the last event: what If-Match carries
            given(history)
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, "psp-auth-99",
                            "captured in the provider dashboard", currentVersion, resolvedAt))
                    .events(
                            new ManualReviewResolvedEvent(ID, ManualResolution.AUTHORIZED, "psp-auth-99",
                                    "captured in the provider dashboard"),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-auth-99"),
                            confirmed(resolvedAt),
                            captureRequested(1, resolvedAt));
        }

        @Test
        void an_operator_resolving_as_declined_voids_the_operation_id_before_releasing_the_stock() {
            given(manualReviewAfterLookups())
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.DECLINED, null,
                            "provider confirms no charge", null, resolvedAt))
                    .events(
                            new ManualReviewResolvedEvent(ID, ManualResolution.DECLINED, null,
                                    "provider confirms no charge"),
                            new PaymentDeclinedEvent(ID, AUTHORIZATION, token(1), "operator: provider confirms no charge"),
                            new PaymentVoidRequestedEvent(ID, TENANT, AUTHORIZATION, AMOUNT,
                                    lease(Step.VOID_PAYMENT, 1, resolvedAt)));
        }

        @Test
        void the_release_after_an_operator_decline_cancels_as_payment_declined() {
            given(concat(manualReviewAfterLookups(),
                            new ManualReviewResolvedEvent(ID, ManualResolution.DECLINED, null, "no charge"),
                            new PaymentDeclinedEvent(ID, AUTHORIZATION, token(1), "operator: no charge"),
                            new StockReleaseRequestedEvent(ID, TENANT, op(Step.RESERVE_STOCK),
                                    lease(Step.RELEASE_STOCK, 1, resolvedAt))))
                    .when(record(new StockReleaseSucceededEvent(ID, op(Step.RELEASE_STOCK), token(1)),
                            resolvedAt.plusSeconds(1)))
                    .events(
                            new StockReleasedEvent(ID, op(Step.RELEASE_STOCK), token(1)),
                            new CheckoutCancelledEvent(ID, CancellationReason.PAYMENT_DECLINED, "operator: no charge"));
        }

        @Test
        void an_operator_can_resolve_a_checkout_whose_authorization_kept_failing() {
            List<Object> blocked = concat(stockReservedHistory(),
                    new ActivityRetryScheduledEvent(ID, Step.AUTHORIZE_PAYMENT, AUTHORIZATION, 1, T0.plusSeconds(3),
                            "HTTP 500"),
                    authorizationRequested(2, T0.plusSeconds(3)),
                    new ManualReviewRequiredEvent(ID, Step.AUTHORIZE_PAYMENT, "authorize-payment failed 3 times",
                            "operation chk-0001/authorize-payment; last failure: HTTP 500"));
            given(blocked)
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, "psp-auth-99", "seen", null,
                            resolvedAt))
                    .events(
                            new ManualReviewResolvedEvent(ID, ManualResolution.AUTHORIZED, "psp-auth-99", "seen"),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(2), "psp-auth-99"),
                            confirmed(resolvedAt),
                            captureRequested(1, resolvedAt));
        }

        /** The customer cancelled while lookup 2 was in flight; the lookups ran out: manual review. */
        private List<Object> customerCancelledThenReview() {
            List<Object> history = new ArrayList<>(lookupInFlight(2));
            history.add(new CheckoutCancellationRequestedEvent(ID, CancellationReason.CUSTOMER_REQUEST,
                    "changed my mind"));
            history.add(new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 3, lookupAt(3), "PENDING"));
            history.add(reconciliationRequested(3));
            history.add(new ManualReviewRequiredEvent(ID, Step.RECONCILE_PAYMENT,
                    "payment outcome still unknown after 3 lookups", "last answer PENDING"));
            return history;
        }

        @Test
        void an_operators_cancel_compensates_despite_the_customers_earlier_cancellation() {
            given(customerCancelledThenReview())
                    .when(new RequestCancellationCommand(ID, CancellationReason.OPERATOR_REQUEST,
                            "customer asked; provider has no charge", null, resolvedAt))
                    .events(
                            new CheckoutCancellationRequestedEvent(ID, CancellationReason.OPERATOR_REQUEST,
                                    "customer asked; provider has no charge"),
                            // maybe authorized: voided under the authorization's operation id, then the stock
                            new PaymentVoidRequestedEvent(ID, TENANT, AUTHORIZATION, AMOUNT,
                                    lease(Step.VOID_PAYMENT, 1, resolvedAt)));
        }

        @Test
        void the_customers_second_cancel_in_review_is_still_only_acknowledged() {
            given(customerCancelledThenReview())
                    .when(new RequestCancellationCommand(ID, CancellationReason.CUSTOMER_REQUEST, "again", null,
                            resolvedAt))
                    .nothing();
        }

        @Test
        void an_operators_cancel_outside_review_after_a_customers_is_acknowledged() {
            given(concat(lookupInFlight(2), new CheckoutCancellationRequestedEvent(ID,
                            CancellationReason.CUSTOMER_REQUEST, "changed my mind")))
                    .when(new RequestCancellationCommand(ID, CancellationReason.OPERATOR_REQUEST, "hurry", null,
                            resolvedAt))
                    .nothing();
        }

        @Test
        void a_notification_during_manual_review_is_held_as_evidence_not_applied() {
            given(manualReviewAfterLookups())
                    .when(new RecordProviderNotificationCommand(ID, AUTHORIZATION, PaymentLookupOutcome.AUTHORIZED,
                            "psp-late-1", "evt-9", resolvedAt))
                    .events(new ProviderNotificationHeldEvent(ID, AUTHORIZATION, ManualResolution.AUTHORIZED,
                            "psp-late-1", "evt-9", resolvedAt));
        }

        @Test
        void the_same_notification_delivered_again_is_held_once() {
            given(concat(manualReviewAfterLookups(), new ProviderNotificationHeldEvent(ID, AUTHORIZATION,
                            ManualResolution.AUTHORIZED, "psp-late-1", "evt-9", resolvedAt)))
                    .when(new RecordProviderNotificationCommand(ID, AUTHORIZATION, PaymentLookupOutcome.AUTHORIZED,
                            "psp-late-1", "evt-9", resolvedAt.plusSeconds(1)))
                    .nothing();
        }

        @Test
        void resolving_as_authorized_applies_the_held_notification_s_reference() {
            given(concat(manualReviewAfterLookups(), new ProviderNotificationHeldEvent(ID, AUTHORIZATION,
                            ManualResolution.AUTHORIZED, "psp-late-1", "evt-9", resolvedAt)))
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, null,
                            "the provider notified it", null, resolvedAt))
                    .events(
                            new ManualReviewResolvedEvent(ID, ManualResolution.AUTHORIZED, "psp-late-1",
                                    "the provider notified it"),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-late-1"),
                            confirmed(resolvedAt),
                            captureRequested(1, resolvedAt));
        }

        @Test
        void resolving_as_authorized_without_the_provider_reference_is_refused() {
            given(manualReviewAfterLookups())
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, null, "trust me", null,
                            resolvedAt))
                    .refused("an authorization is resolved with the provider's reference");
        }

        @Test
        void a_held_notification_that_reported_a_decline_is_no_evidence_of_an_authorization() {
            given(manualReviewAfterLookups(), new ProviderNotificationHeldEvent(ID, AUTHORIZATION,
                            ManualResolution.DECLINED, "psp-declined-1", "evt-8", resolvedAt))
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, null, "trust me", null,
                            resolvedAt))
                    .refused("an authorization is resolved with the provider's reference");
        }

        @Test
        void a_held_authorization_without_a_reference_is_no_evidence() {
            given(manualReviewAfterLookups(), new ProviderNotificationHeldEvent(ID, AUTHORIZATION,
                            ManualResolution.AUTHORIZED, null, "evt-8", resolvedAt))
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, "", "trust me", null,
                            resolvedAt))
                    .refused("an authorization is resolved with the provider's reference");
        }

        @Test
        void of_several_held_authorizations_the_latest_reference_is_the_evidence() {
            given(manualReviewAfterLookups(),
                    new ProviderNotificationHeldEvent(ID, AUTHORIZATION, ManualResolution.AUTHORIZED, "psp-first",
                            "evt-8", resolvedAt),
                    new ProviderNotificationHeldEvent(ID, AUTHORIZATION, ManualResolution.AUTHORIZED, "psp-latest",
                            "evt-9", resolvedAt))
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, " ", "notified", null,
                            resolvedAt))
                    .events(new ManualReviewResolvedEvent(ID, ManualResolution.AUTHORIZED, "psp-latest", "notified"),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-latest"),
                            confirmed(resolvedAt),
                            captureRequested(1, resolvedAt));
        }

        @Test
        void an_operator_retry_schedules_another_lookup_with_a_fresh_budget() {
            Instant due = resolvedAt.plus(RECONCILIATION_INITIAL);
            given(manualReviewAfterLookups())
                    .when(new RetryActivityCommand(ID, null, resolvedAt))
                    .events(
                            new OperatorRetryRequestedEvent(ID, Step.RECONCILE_PAYMENT),
                            new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, MAX_LOOKUPS + 1, due,
                                    "operator retry"))
                    .cancelsNothing()
                    .schedules(lookupTimer(MAX_LOOKUPS + 1, due));
        }

        @Test
        void after_an_operator_retry_the_lookups_get_the_full_budget_again() {
            Instant retryLookupAt = resolvedAt.plus(RECONCILIATION_INITIAL);
            Instant answered = retryLookupAt.plus(ANSWER_AFTER);
            given(concat(manualReviewAfterLookups(),
                            new OperatorRetryRequestedEvent(ID, Step.RECONCILE_PAYMENT),
                            new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 4, retryLookupAt, "operator retry"),
                            new PaymentReconciliationRequestedEvent(ID, TENANT, AUTHORIZATION, 4,
                                    lease(Step.RECONCILE_PAYMENT, 4, retryLookupAt))))
                    .when(record(lookupAnswered(4, PaymentLookupOutcome.PENDING, null), answered))
                    .events(new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 5,
                            answered.plus(RECONCILIATION_INITIAL.multipliedBy(2)), "PENDING"));
        }
    }
}
