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
import io.durablecheckout.orchestrator.checkout.Deadlines.LeaseExpiry;
import io.durablecheckout.orchestrator.checkout.Deadlines.ReconciliationDue;
import org.axonframework.modelling.command.ConflictingAggregateVersionException;
import org.axonframework.test.aggregate.AggregateTestFixture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AUTHORIZED_AT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.AMOUNT;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.ID;
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
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.start;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservationSucceeded;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.stockReservedHistory;
import static io.durablecheckout.orchestrator.checkout.CheckoutScenario.token;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An unknown payment outcome is never a decline: the checkout asks the provider later, always under the ORIGINAL
 * authorization operation id, backs off exponentially, and after {@value CheckoutScenario#MAX_LOOKUPS} inconclusive
 * answers hands the decision to an operator.
 */
class CheckoutReconciliationTest {

    /** The authorization's idempotency key: every lookup names it; no lookup ever mints a new one. */
    private static final OperationId AUTHORIZATION = new OperationId("chk-0001/authorize-payment");
    private static final Duration ANSWER_AFTER = Duration.ofSeconds(1);

    private AggregateTestFixture<Checkout> fixture;

    @BeforeEach
    void setUp() {
        fixture = CheckoutScenario.fixture();
    }

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
            fixture.given(stockReservedHistory())
                    .when(record(authorizationUnknown(1), AUTHORIZED_AT))
                    .expectEvents(
                            new PaymentOutcomeUnknownEvent(ID, AUTHORIZATION, token(1), "provider timeout"),
                            new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 1, due, "provider timeout"))
                    .expectScheduledDeadlineWithName(due, Deadlines.RECONCILIATION_DUE)
                    .expectScheduledDeadline(due, new ReconciliationDue(1));
        }

        @Test
        void the_reconciliation_deadline_requests_a_lookup_under_the_original_authorization_operation_id() {
            Instant due = AUTHORIZED_AT.plus(RECONCILIATION_INITIAL);
            fixture.givenCurrentTime(T0)
                    .andGivenCommands(
                            start(),
                            record(stockReservationSucceeded(1), RESERVED_AT),
                            record(authorizationUnknown(1), AUTHORIZED_AT))
                    .whenThenTimeAdvancesTo(due)
                    .expectTriggeredDeadlinesWithName(Deadlines.RECONCILIATION_DUE)
                    .expectEvents(new PaymentReconciliationRequestedEvent(ID, TENANT,
                            new OperationId("chk-0001/authorize-payment"), 1,
                            new Lease(new OperationId("chk-0001/reconcile-payment"), 1, FencingToken.first(),
                                    due.plus(PAYMENT_LEASE))))
                    .expectScheduledDeadline(due.plus(PAYMENT_LEASE), new LeaseExpiry(Step.RECONCILE_PAYMENT, token(1)));
        }

        @Test
        void no_lookup_is_requested_before_it_is_due() {
            fixture.givenCurrentTime(T0)
                    .andGivenCommands(
                            start(),
                            record(stockReservationSucceeded(1), RESERVED_AT),
                            record(authorizationUnknown(1), AUTHORIZED_AT))
                    .whenThenTimeAdvancesTo(AUTHORIZED_AT.plus(RECONCILIATION_INITIAL).minusMillis(1))
                    .expectNoEvents();
        }
    }

    @Nested
    class LookupAnswers {

        @Test
        void a_lookup_that_finds_the_authorization_confirms_the_checkout() {
            fixture.given(lookupInFlight(1))
                    .when(record(lookupAnswered(1, PaymentLookupOutcome.AUTHORIZED, "psp-auth-77"), answeredAt(1)))
                    .expectEvents(
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-auth-77"),
                            new CheckoutConfirmedEvent(ID),
                            receiptRequested(1, answeredAt(1)));
        }

        @Test
        void a_lookup_that_finds_a_decline_releases_the_stock() {
            fixture.given(lookupInFlight(1))
                    .when(record(lookupAnswered(1, PaymentLookupOutcome.DECLINED, null), answeredAt(1)))
                    .expectEvents(
                            new PaymentDeclinedEvent(ID, AUTHORIZATION, token(1), "reconciliation: DECLINED"),
                            new StockReleaseRequestedEvent(ID, TENANT, op(Step.RESERVE_STOCK),
                                    lease(Step.RELEASE_STOCK, 1, answeredAt(1))));
        }

        @Test
        void a_lookup_that_finds_nothing_voids_the_operation_id_before_releasing_the_stock() {
            // a request still travelling to the provider must not authorize later: the void is its tombstone
            fixture.given(lookupInFlight(1))
                    .when(record(new PaymentLookupAnsweredEvent(ID, op(Step.RECONCILE_PAYMENT), token(1), AUTHORIZATION,
                            PaymentLookupOutcome.NOT_FOUND, null, "no such idempotency key"), answeredAt(1)))
                    .expectEvents(
                            new PaymentDeclinedEvent(ID, AUTHORIZATION, token(1),
                                    "reconciliation: NOT_FOUND (no such idempotency key)"),
                            new PaymentVoidRequestedEvent(ID, TENANT, AUTHORIZATION, AMOUNT,
                                    lease(Step.VOID_PAYMENT, 1, answeredAt(1))));
        }

        @Test
        void a_pending_answer_schedules_the_next_lookup_after_twice_the_wait() {
            Instant due = answeredAt(1).plus(RECONCILIATION_INITIAL.multipliedBy(2));
            fixture.given(lookupInFlight(1))
                    .when(record(lookupAnswered(1, PaymentLookupOutcome.PENDING, null), answeredAt(1)))
                    .expectEvents(new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 2, due, "PENDING"))
                    .expectScheduledDeadline(due, new ReconciliationDue(2));
        }

        @Test
        void each_further_pending_answer_doubles_the_wait_again() {
            Instant due = answeredAt(2).plus(RECONCILIATION_INITIAL.multipliedBy(4));
            fixture.given(lookupInFlight(2))
                    .when(record(lookupAnswered(2, PaymentLookupOutcome.PENDING, null), answeredAt(2)))
                    .expectEvents(new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 3, due, "PENDING"))
                    .expectScheduledDeadline(due, new ReconciliationDue(3));
        }

        @Test
        void a_failed_lookup_counts_as_inconclusive() {
            Instant due = answeredAt(1).plus(RECONCILIATION_INITIAL.multipliedBy(2));
            fixture.given(lookupInFlight(1))
                    .when(record(new PaymentLookupAnsweredEvent(ID, op(Step.RECONCILE_PAYMENT), token(1), AUTHORIZATION,
                            PaymentLookupOutcome.LOOKUP_FAILED, null, "HTTP 503"), answeredAt(1)))
                    .expectEvents(new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 2, due,
                            "LOOKUP_FAILED (HTTP 503)"));
        }

        @Test
        void the_next_lookup_is_a_new_lease_of_the_reconcile_step_that_still_names_the_original_authorization() {
            Instant due = answeredAt(1).plus(RECONCILIATION_INITIAL.multipliedBy(2));
            fixture.givenCurrentTime(T0)
                    .andGiven(lookupInFlight(1))
                    .andGivenCommands(record(lookupAnswered(1, PaymentLookupOutcome.PENDING, null), answeredAt(1)))
                    .whenThenTimeAdvancesTo(due)
                    .expectEvents(new PaymentReconciliationRequestedEvent(ID, TENANT, AUTHORIZATION, 2,
                            new Lease(new OperationId("chk-0001/reconcile-payment"), 2, new FencingToken(2),
                                    due.plus(PAYMENT_LEASE))));
        }

        @Test
        void an_answer_to_an_earlier_lookup_is_rejected() {
            fixture.given(lookupInFlight(2))
                    .when(record(lookupAnswered(1, PaymentLookupOutcome.DECLINED, null), answeredAt(2)))
                    .expectEvents(new ActivityResultRejectedEvent(ID,
                            Step.RECONCILE_PAYMENT, op(Step.RECONCILE_PAYMENT), token(1), token(2)));
        }

        @Test
        void a_failed_lookup_attempt_is_retried_for_the_same_lookup() {
            Instant failedAt = answeredAt(1);
            fixture.given(lookupInFlight(1))
                    .when(record(attemptFailed(Step.RECONCILE_PAYMENT, 1), failedAt))
                    .expectEvents(new ActivityRetryScheduledEvent(ID, Step.RECONCILE_PAYMENT,
                            op(Step.RECONCILE_PAYMENT), 1, failedAt.plus(RETRY_INITIAL),
                            "connection reset"));
        }

        @Test
        void after_the_last_allowed_lookup_stays_inconclusive_an_operator_decides() {
            fixture.given(lookupInFlight(MAX_LOOKUPS))
                    .when(record(lookupAnswered(MAX_LOOKUPS, PaymentLookupOutcome.PENDING, null),
                            answeredAt(MAX_LOOKUPS)))
                    .expectEvents(new ManualReviewRequiredEvent(ID, Step.RECONCILE_PAYMENT,
                            "payment outcome still unknown after 3 lookups",
                            "authorization operation chk-0001/authorize-payment; last answer PENDING; "
                                    + "the provider may still authorize or decline it"))
                    .expectNoScheduledDeadlines();
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
            fixture.given(outcomeUnknownHistory())
                    .when(notification(PaymentLookupOutcome.AUTHORIZED, "evt-1"))
                    .expectEvents(new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-77"),
                            new CheckoutConfirmedEvent(ID), receiptRequested(1, receivedAt));
        }

        @Test
        void while_the_outcome_is_unknown_a_declined_notification_releases_the_stock() {
            fixture.given(outcomeUnknownHistory())
                    .when(notification(PaymentLookupOutcome.DECLINED, "evt-1"))
                    .expectEvents(new PaymentDeclinedEvent(ID, AUTHORIZATION, token(1), "provider notification evt-1"),
                            new StockReleaseRequestedEvent(ID, TENANT, op(Step.RESERVE_STOCK),
                                    lease(Step.RELEASE_STOCK, 1, receivedAt)));
        }

        @Test
        void a_notification_that_agrees_with_the_recorded_outcome_changes_nothing() {
            fixture.given(concat(outcomeUnknownHistory(),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-77")))
                    .when(notification(PaymentLookupOutcome.AUTHORIZED, "evt-2"))
                    .expectSuccessfulHandlerExecution()
                    .expectNoEvents();
        }

        @Test
        void a_notification_that_contradicts_the_recorded_outcome_is_not_applied_but_disputed() {
            fixture.given(concat(outcomeUnknownHistory(),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-77")))
                    .when(notification(PaymentLookupOutcome.DECLINED, "evt-3"))
                    .expectEvents(new PaymentOutcomeDisputedEvent(ID, ManualResolution.AUTHORIZED,
                            ManualResolution.DECLINED, "evt-3", "psp-77"));
        }

        @Test
        void an_operator_closes_a_dispute_without_rewinding_the_workflow() {
            fixture.given(concat(outcomeUnknownHistory(),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-77"),
                            new PaymentOutcomeDisputedEvent(ID, ManualResolution.AUTHORIZED, ManualResolution.DECLINED,
                                    "evt-3", "psp-77")))
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, "psp-77",
                            "provider dashboard shows the capture", null, receivedAt))
                    .expectEvents(new ManualReviewResolvedEvent(ID, ManualResolution.AUTHORIZED, "psp-77",
                            "provider dashboard shows the capture"));
        }

        @Test
        void a_notification_for_another_operation_is_refused() {
            fixture.given(outcomeUnknownHistory())
                    .when(new RecordProviderNotificationCommand(ID, new OperationId("other/authorize-payment"),
                            PaymentLookupOutcome.AUTHORIZED, "x", "evt-4", receivedAt))
                    .expectException(IllegalCheckoutTransitionException.class)
                    .expectNoEvents();
        }
    }

    @Nested
    class ManualReview {

        private final Instant resolvedAt = T0.plusSeconds(600);

        @Test
        void an_operator_resolving_as_authorized_confirms_the_checkout_under_the_original_authorization() {
            List<Object> history = manualReviewAfterLookups();
            long currentVersion = history.size() - 1; // the sequence number of the last event: what If-Match carries
            fixture.given(history)
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, "psp-auth-99",
                            "captured in the provider dashboard", currentVersion, resolvedAt))
                    .expectEvents(
                            new ManualReviewResolvedEvent(ID, ManualResolution.AUTHORIZED, "psp-auth-99",
                                    "captured in the provider dashboard"),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-auth-99"),
                            new CheckoutConfirmedEvent(ID),
                            receiptRequested(1, resolvedAt));
        }

        @Test
        void a_resolution_decided_on_an_outdated_view_is_refused() {
            List<Object> history = manualReviewAfterLookups();
            long outdatedVersion = history.size() - 2; // the operator looked before the manual review was recorded
            fixture.given(history)
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, "psp-auth-99", "seen",
                            outdatedVersion, resolvedAt))
                    .expectException(ConflictingAggregateVersionException.class)
                    .expectNoEvents();
        }

        @Test
        void an_operator_resolving_as_declined_voids_the_operation_id_before_releasing_the_stock() {
            fixture.given(manualReviewAfterLookups())
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.DECLINED, null,
                            "provider confirms no charge", null, resolvedAt))
                    .expectEvents(
                            new ManualReviewResolvedEvent(ID, ManualResolution.DECLINED, null,
                                    "provider confirms no charge"),
                            new PaymentDeclinedEvent(ID, AUTHORIZATION, token(1), "operator: provider confirms no charge"),
                            new PaymentVoidRequestedEvent(ID, TENANT, AUTHORIZATION, AMOUNT,
                                    lease(Step.VOID_PAYMENT, 1, resolvedAt)));
        }

        @Test
        void the_release_after_an_operator_decline_cancels_as_payment_declined() {
            fixture.given(concat(manualReviewAfterLookups(),
                            new ManualReviewResolvedEvent(ID, ManualResolution.DECLINED, null, "no charge"),
                            new PaymentDeclinedEvent(ID, AUTHORIZATION, token(1), "operator: no charge"),
                            new StockReleaseRequestedEvent(ID, TENANT, op(Step.RESERVE_STOCK),
                                    lease(Step.RELEASE_STOCK, 1, resolvedAt))))
                    .when(record(new StockReleaseSucceededEvent(ID, op(Step.RELEASE_STOCK), token(1)),
                            resolvedAt.plusSeconds(1)))
                    .expectEvents(
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
            fixture.given(blocked)
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, "psp-auth-99", "seen", null,
                            resolvedAt))
                    .expectEvents(
                            new ManualReviewResolvedEvent(ID, ManualResolution.AUTHORIZED, "psp-auth-99", "seen"),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(2), "psp-auth-99"),
                            new CheckoutConfirmedEvent(ID),
                            receiptRequested(1, resolvedAt));
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
            fixture.given(customerCancelledThenReview())
                    .when(new RequestCancellationCommand(ID, CancellationReason.OPERATOR_REQUEST,
                            "customer asked; provider has no charge", null, resolvedAt))
                    .expectEvents(
                            new CheckoutCancellationRequestedEvent(ID, CancellationReason.OPERATOR_REQUEST,
                                    "customer asked; provider has no charge"),
                            // maybe authorized: voided under the authorization's operation id, then the stock
                            new PaymentVoidRequestedEvent(ID, TENANT, AUTHORIZATION, AMOUNT,
                                    lease(Step.VOID_PAYMENT, 1, resolvedAt)));
        }

        @Test
        void the_customers_second_cancel_in_review_is_still_only_acknowledged() {
            fixture.given(customerCancelledThenReview())
                    .when(new RequestCancellationCommand(ID, CancellationReason.CUSTOMER_REQUEST, "again", null,
                            resolvedAt))
                    .expectSuccessfulHandlerExecution()
                    .expectNoEvents();
        }

        @Test
        void an_operators_cancel_outside_review_after_a_customers_is_acknowledged() {
            fixture.given(concat(lookupInFlight(2), new CheckoutCancellationRequestedEvent(ID,
                            CancellationReason.CUSTOMER_REQUEST, "changed my mind")))
                    .when(new RequestCancellationCommand(ID, CancellationReason.OPERATOR_REQUEST, "hurry", null,
                            resolvedAt))
                    .expectSuccessfulHandlerExecution()
                    .expectNoEvents();
        }

        @Test
        void a_notification_during_manual_review_is_held_as_evidence_not_applied() {
            fixture.given(manualReviewAfterLookups())
                    .when(new RecordProviderNotificationCommand(ID, AUTHORIZATION, PaymentLookupOutcome.AUTHORIZED,
                            "psp-late-1", "evt-9", resolvedAt))
                    .expectEvents(new ProviderNotificationHeldEvent(ID, AUTHORIZATION, ManualResolution.AUTHORIZED,
                            "psp-late-1", "evt-9", resolvedAt));
        }

        @Test
        void the_same_notification_delivered_again_is_held_once() {
            fixture.given(concat(manualReviewAfterLookups(), new ProviderNotificationHeldEvent(ID, AUTHORIZATION,
                            ManualResolution.AUTHORIZED, "psp-late-1", "evt-9", resolvedAt)))
                    .when(new RecordProviderNotificationCommand(ID, AUTHORIZATION, PaymentLookupOutcome.AUTHORIZED,
                            "psp-late-1", "evt-9", resolvedAt.plusSeconds(1)))
                    .expectSuccessfulHandlerExecution()
                    .expectNoEvents();
        }

        @Test
        void resolving_as_authorized_applies_the_held_notification_s_reference() {
            fixture.given(concat(manualReviewAfterLookups(), new ProviderNotificationHeldEvent(ID, AUTHORIZATION,
                            ManualResolution.AUTHORIZED, "psp-late-1", "evt-9", resolvedAt)))
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, null,
                            "the provider notified it", null, resolvedAt))
                    .expectEvents(
                            new ManualReviewResolvedEvent(ID, ManualResolution.AUTHORIZED, "psp-late-1",
                                    "the provider notified it"),
                            new PaymentAuthorizedEvent(ID, AUTHORIZATION, token(1), "psp-late-1"),
                            new CheckoutConfirmedEvent(ID),
                            receiptRequested(1, resolvedAt));
        }

        @Test
        void resolving_as_authorized_without_the_provider_reference_is_refused() {
            fixture.given(manualReviewAfterLookups())
                    .when(new ResolveManualReviewCommand(ID, ManualResolution.AUTHORIZED, null, "trust me", null,
                            resolvedAt))
                    .expectException(IllegalCheckoutTransitionException.class)
                    .expectNoEvents();
        }

        @Test
        void an_operator_retry_schedules_another_lookup_with_a_fresh_budget() {
            Instant due = resolvedAt.plus(RECONCILIATION_INITIAL);
            fixture.given(manualReviewAfterLookups())
                    .when(new RetryActivityCommand(ID, null, resolvedAt))
                    .expectEvents(
                            new OperatorRetryRequestedEvent(ID, Step.RECONCILE_PAYMENT),
                            new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, MAX_LOOKUPS + 1, due,
                                    "operator retry"))
                    .expectScheduledDeadline(due, new ReconciliationDue(MAX_LOOKUPS + 1));
        }

        @Test
        void after_an_operator_retry_the_lookups_get_the_full_budget_again() {
            Instant retryLookupAt = resolvedAt.plus(RECONCILIATION_INITIAL);
            Instant answered = retryLookupAt.plus(ANSWER_AFTER);
            fixture.given(concat(manualReviewAfterLookups(),
                            new OperatorRetryRequestedEvent(ID, Step.RECONCILE_PAYMENT),
                            new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 4, retryLookupAt, "operator retry"),
                            new PaymentReconciliationRequestedEvent(ID, TENANT, AUTHORIZATION, 4,
                                    lease(Step.RECONCILE_PAYMENT, 4, retryLookupAt))))
                    .when(record(lookupAnswered(4, PaymentLookupOutcome.PENDING, null), answered))
                    .expectEvents(new PaymentReconciliationScheduledEvent(ID, AUTHORIZATION, 5,
                            answered.plus(RECONCILIATION_INITIAL.multipliedBy(2)), "PENDING"));
        }
    }
}
