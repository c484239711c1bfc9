package io.durablecheckout.activities.payments;

import io.durablecheckout.activities.ActivityMetrics;
import io.durablecheckout.activities.PostgresTestSupport;
import io.durablecheckout.activities.RecordingEventGateway;
import io.durablecheckout.activities.payments.PaymentProvider.AuthorizationStatus;
import io.durablecheckout.activities.payments.PaymentProvider.CompensationAnswer;
import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationActionRequiredEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationDeclinedEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationOutcomeUnknownEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationSucceededEvent;
import io.durablecheckout.api.activity.PaymentLookupAnsweredEvent;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.activity.PaymentRefundSucceededEvent;
import io.durablecheckout.api.activity.PaymentVoidSucceededEvent;
import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentRefundRequestedEvent;
import io.durablecheckout.api.checkout.PaymentVoidRequestedEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.durablecheckout.activities.TestIntents.lease;
import static io.durablecheckout.activities.TestIntents.token;
import static io.durablecheckout.activities.payments.ScriptedPaymentProvider.answer;
import static io.durablecheckout.activities.payments.ScriptedPaymentProvider.authorized;
import static io.durablecheckout.activities.payments.ScriptedPaymentProvider.lookupAnswer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class PaymentsResourceTest extends PostgresTestSupport {

    private static final TenantId TENANT = new TenantId("t1");
    private static final Money AMOUNT = new Money(4_200, "EUR");

    private static OperationId authOp(CheckoutId id) {
        return OperationId.of(id, Step.AUTHORIZE_PAYMENT);
    }

    private static AuthorizationOutcome authorize(PaymentsResource payments, CheckoutId id, long token) {
        return inTransaction(() -> payments.authorize(id, TENANT, authOp(id), token(token), AMOUNT, "tok_approve"));
    }

    @Test
    void authorizesOnceAndReplaysTheRecordedOutcomeWithoutCallingTheProviderAgain() {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider().then(authorized("REF-1"));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        CheckoutId id = new CheckoutId("chk-p1");

        AuthorizationOutcome first = authorize(payments, id, 1);
        AuthorizationOutcome duplicate = authorize(payments, id, 1);
        AuthorizationOutcome newOwner = authorize(payments, id, 2);

        assertThat(first.status()).isEqualTo(AuthorizationOutcome.Status.AUTHORIZED);
        assertThat(first.providerReference()).isEqualTo("REF-1");
        assertThat(duplicate.replayed()).isTrue();
        assertThat(duplicate.providerReference()).isEqualTo("REF-1");
        assertThat(newOwner.replayed()).isTrue();
        assertThat(provider.calls).containsExactly("authorize " + authOp(id));
        assertThat(payments.statusOf(authOp(id))).isEqualTo("AUTHORIZED");
    }

    @Test
    void unknownIsNotTerminalAndTheNextOwnerAsksAgainUnderTheSameOperationId() {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider()
                .then(answer(AuthorizationStatus.UNKNOWN, "no answer within PT2S"))
                .then(answer(AuthorizationStatus.PENDING, "provider reports PENDING"))
                .then(authorized("REF-2"));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        CheckoutId id = new CheckoutId("chk-p2");

        AuthorizationOutcome timeout = authorize(payments, id, 1);
        assertThat(timeout.status()).isEqualTo(AuthorizationOutcome.Status.UNKNOWN);
        assertThat(payments.statusOf(authOp(id))).isEqualTo("UNKNOWN");
        assertThat(authorize(payments, id, 2).status()).isEqualTo(AuthorizationOutcome.Status.UNKNOWN);
        AuthorizationOutcome third = authorize(payments, id, 3);

        assertThat(third.status()).isEqualTo(AuthorizationOutcome.Status.AUTHORIZED);
        assertThat(provider.calls).containsOnly("authorize " + authOp(id)).hasSize(3);
        assertThat(jdbc.queryForObject("SELECT attempts FROM payment_operations WHERE operation_id = ?",
                Integer.class, authOp(id).value())).isEqualTo(3);
    }

    @Test
    void unavailableIsARetryableFailure() {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider()
                .then(answer(AuthorizationStatus.UNAVAILABLE, "provider unavailable (HTTP 503)"))
                .then(answer(AuthorizationStatus.DECLINED, "insufficient funds"));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        CheckoutId id = new CheckoutId("chk-p3");

        assertThat(authorize(payments, id, 1).status()).isEqualTo(AuthorizationOutcome.Status.FAILED);
        AuthorizationOutcome declined = authorize(payments, id, 1);
        AuthorizationOutcome replay = authorize(payments, id, 1);

        assertThat(declined.status()).isEqualTo(AuthorizationOutcome.Status.DECLINED);
        assertThat(declined.detail()).isEqualTo("insufficient funds");
        assertThat(replay.status()).isEqualTo(AuthorizationOutcome.Status.DECLINED);
        assertThat(replay.detail()).isEqualTo("insufficient funds");
        assertThat(replay.replayed()).isTrue();
        assertThat(provider.calls).hasSize(2);
    }

    @Test
    void staleOwnerNeverReachesTheProvider() {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider()
                .then(answer(AuthorizationStatus.UNKNOWN, "timeout"));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        CheckoutId id = new CheckoutId("chk-p4");
        authorize(payments, id, 5);

        AuthorizationOutcome stale = authorize(payments, id, 4);

        assertThat(stale.status()).isEqualTo(AuthorizationOutcome.Status.STALE);
        assertThat(stale.highestAccepted()).isEqualTo(new FencingToken(5));
        assertThat(provider.calls).hasSize(1);
    }

    @Test
    void concurrentOwnersAreSerializedByTheRowLockSoTheProviderIsCalledOnce() throws Exception {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider().then(authorized("REF-5"));
        provider.gate = new CountDownLatch(1);
        provider.entered = new CountDownLatch(1);
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        CheckoutId id = new CheckoutId("chk-p5");

        CompletableFuture<AuthorizationOutcome> oldOwner = CompletableFuture.supplyAsync(() -> authorize(payments, id, 1));
        assertThat(provider.entered.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<AuthorizationOutcome> newOwner = CompletableFuture.supplyAsync(() -> authorize(payments, id, 2));
        // The new owner is blocked on the operation row the old owner holds while it talks to the provider.
        await().atMost(10, TimeUnit.SECONDS).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'", Integer.class) > 0);
        assertThat(newOwner).isNotDone();
        provider.gate.countDown();

        assertThat(oldOwner.get(10, TimeUnit.SECONDS).status()).isEqualTo(AuthorizationOutcome.Status.AUTHORIZED);
        AuthorizationOutcome second = newOwner.get(10, TimeUnit.SECONDS);
        assertThat(second.status()).isEqualTo(AuthorizationOutcome.Status.AUTHORIZED);
        assertThat(second.replayed()).isTrue();
        assertThat(provider.calls).hasSize(1);
    }

    @Test
    void lookupAsksUnderTheAuthorizationIdAndRecordsADecidedAnswerOnTheAuthorization() {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider()
                .then(answer(AuthorizationStatus.UNKNOWN, "timeout"))
                .then(lookupAnswer(PaymentLookupOutcome.PENDING, null))
                .then(lookupAnswer(PaymentLookupOutcome.AUTHORIZED, "REF-6"));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        CheckoutId id = new CheckoutId("chk-p6");
        OperationId lookupOp = OperationId.of(id, Step.RECONCILE_PAYMENT);
        authorize(payments, id, 1);

        LookupResult pending = inTransaction(() -> payments.lookup(id, TENANT, lookupOp, token(1), authOp(id)));
        assertThat(pending.outcome()).isEqualTo(PaymentLookupOutcome.PENDING);
        assertThat(payments.statusOf(authOp(id))).isEqualTo("UNKNOWN");
        // A later round under the same lookup operation asks again rather than replaying PENDING.
        LookupResult authorized = inTransaction(() -> payments.lookup(id, TENANT, lookupOp, token(2), authOp(id)));
        assertThat(authorized.outcome()).isEqualTo(PaymentLookupOutcome.AUTHORIZED);
        assertThat(authorized.providerReference()).isEqualTo("REF-6");
        assertThat(payments.statusOf(authOp(id))).isEqualTo("AUTHORIZED");

        LookupResult stale = inTransaction(() -> payments.lookup(id, TENANT, lookupOp, token(1), authOp(id)));
        assertThat(stale.stale()).isTrue();
        assertThat(stale.highestAccepted()).isEqualTo(token(2));

        // A re-issued authorization intent now re-publishes the reconciled outcome without calling the provider.
        AuthorizationOutcome replay = authorize(payments, id, 2);
        assertThat(replay.status()).isEqualTo(AuthorizationOutcome.Status.AUTHORIZED);
        assertThat(replay.providerReference()).isEqualTo("REF-6");
        assertThat(provider.calls).containsExactly("authorize " + authOp(id), "lookup " + authOp(id),
                "lookup " + authOp(id));
    }

    @Test
    void voidAndRefundAreDoneOncePerOperationAndRetriedAfterFailure() {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider()
                .then(new CompensationAnswer(false, null, "provider unavailable (HTTP 503)"))
                .then(new CompensationAnswer(true, "VOID-1", null))
                .then(new CompensationAnswer(true, "REFUND-1", null));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        CheckoutId id = new CheckoutId("chk-p7");
        OperationId voidOp = OperationId.of(id, Step.VOID_PAYMENT);
        OperationId refundOp = OperationId.of(id, Step.REFUND_PAYMENT);

        CompensationOutcome failed = inTransaction(() -> payments.voidAuthorization(id, TENANT, voidOp, token(1), authOp(id), AMOUNT));
        CompensationOutcome done = inTransaction(() -> payments.voidAuthorization(id, TENANT, voidOp, token(1), authOp(id), AMOUNT));
        CompensationOutcome replay = inTransaction(() -> payments.voidAuthorization(id, TENANT, voidOp, token(2), authOp(id), AMOUNT));
        CompensationOutcome stale = inTransaction(() -> payments.voidAuthorization(id, TENANT, voidOp, token(1), authOp(id), AMOUNT));
        CompensationOutcome refund = inTransaction(() -> payments.refund(id, TENANT, refundOp, token(1), authOp(id), AMOUNT));

        assertThat(failed.status()).isEqualTo(CompensationOutcome.Status.FAILED);
        assertThat(done.status()).isEqualTo(CompensationOutcome.Status.DONE);
        assertThat(done.providerReference()).isEqualTo("VOID-1");
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.providerReference()).isEqualTo("VOID-1");
        assertThat(stale.status()).isEqualTo(CompensationOutcome.Status.STALE);
        assertThat(refund.providerReference()).isEqualTo("REFUND-1");
        assertThat(provider.calls).containsExactly(
                "void " + authOp(id) + " key " + voidOp, "void " + authOp(id) + " key " + voidOp,
                "refund " + authOp(id) + " key " + refundOp);
    }

    @Test
    void workerMapsEveryOutcomeToItsResultEvent() {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider()
                .then(answer(AuthorizationStatus.UNKNOWN, "no answer within PT2S"))
                .then(answer(AuthorizationStatus.UNAVAILABLE, "connection refused"))
                .then(answer(AuthorizationStatus.DECLINED, "insufficient funds"))
                .then(lookupAnswer(PaymentLookupOutcome.DECLINED, "REF-8"))
                .then(new CompensationAnswer(true, "VOID-8", null))
                .then(new CompensationAnswer(false, null, "refund not done, provider answered HTTP 409"));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        RecordingEventGateway events = new RecordingEventGateway();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        PaymentsWorker worker = new PaymentsWorker(payments, events, new ActivityMetrics(meters));
        CheckoutId id = new CheckoutId("chk-p8");
        CheckoutId other = new CheckoutId("chk-p8b");
        OperationId lookupOp = OperationId.of(id, Step.RECONCILE_PAYMENT);

        inTransaction(() -> worker.on(new PaymentAuthorizationRequestedEvent(id, TENANT, AMOUNT, "tok_x",
                lease(id, Step.AUTHORIZE_PAYMENT, 1))));
        inTransaction(() -> worker.on(new PaymentAuthorizationRequestedEvent(other, TENANT, AMOUNT, "tok_x",
                lease(other, Step.AUTHORIZE_PAYMENT, 1))));
        inTransaction(() -> worker.on(new PaymentAuthorizationRequestedEvent(other, TENANT, AMOUNT, "tok_x",
                lease(other, Step.AUTHORIZE_PAYMENT, 2))));
        inTransaction(() -> worker.on(new PaymentReconciliationRequestedEvent(id, TENANT, authOp(id), 1,
                lease(id, Step.RECONCILE_PAYMENT, 1))));
        inTransaction(() -> worker.on(new PaymentAuthorizationRequestedEvent(id, TENANT, AMOUNT, "tok_x",
                lease(id, Step.AUTHORIZE_PAYMENT, 2))));
        inTransaction(() -> worker.on(new PaymentVoidRequestedEvent(id, TENANT, authOp(id), AMOUNT,
                lease(id, Step.VOID_PAYMENT, 1))));
        inTransaction(() -> worker.on(new PaymentRefundRequestedEvent(id, TENANT, authOp(id), AMOUNT,
                lease(id, Step.REFUND_PAYMENT, 1))));
        inTransaction(() -> worker.on(new PaymentAuthorizationRequestedEvent(id, TENANT, AMOUNT, "tok_x",
                lease(id, Step.AUTHORIZE_PAYMENT, 1))));

        assertThat(events.published()).containsExactly(
                new PaymentAuthorizationOutcomeUnknownEvent(id, authOp(id), token(1), "no answer within PT2S"),
                new ActivityAttemptFailedEvent(other, Step.AUTHORIZE_PAYMENT, authOp(other), token(1), "connection refused"),
                new PaymentAuthorizationDeclinedEvent(other, authOp(other), token(2), "insufficient funds"),
                new PaymentLookupAnsweredEvent(id, lookupOp, token(1), authOp(id), PaymentLookupOutcome.DECLINED, "REF-8", null),
                new PaymentAuthorizationDeclinedEvent(id, authOp(id), token(2), "reconciled by " + lookupOp),
                new PaymentVoidSucceededEvent(id, OperationId.of(id, Step.VOID_PAYMENT), token(1), "VOID-8"),
                new ActivityAttemptFailedEvent(id, Step.REFUND_PAYMENT, OperationId.of(id, Step.REFUND_PAYMENT), token(1),
                        "refund not done, provider answered HTTP 409"),
                new StaleOwnerRejectedEvent(id, Step.AUTHORIZE_PAYMENT, authOp(id), token(1), token(2), "payment_operations"));
        assertThat(meters.counter(ActivityMetrics.EXECUTIONS, "step", "authorize-payment", "outcome", "unknown").count()).isEqualTo(1);
        assertThat(meters.counter(ActivityMetrics.EXECUTIONS, "step", "reconcile-payment", "outcome", "declined").count()).isEqualTo(1);
        assertThat(meters.counter(ActivityMetrics.STALE_REJECTED, "resource", "payment_operations").count()).isEqualTo(1);
        // Never a card token or secret in a result.
        assertThat(events.published()).allSatisfy(event -> assertThat(event.toString()).doesNotContain("tok_"));
    }

    /**
     * 3-D Secure: the provider needs the customer. Published as such, with the provider's next action; a redelivered
     * intent is answered from the record (the provider is not asked again); the notification the checkout acts on
     * (recordResolution) still settles the row, and a redelivery after that answers the decision.
     */
    @Test
    void anAuthorizationThatNeedsTheCustomerIsPublishedRecordedNotFinalAndSettledByTheResolution() {
        String next = "{\"type\":\"redirect_to_url\",\"redirect_to_url\":{\"url\":\"https://acs.example/1\"}}";
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider().then(new PaymentProvider.AuthorizationAnswer(
                AuthorizationStatus.ACTION_REQUIRED, "REF-3DS", "requires action", next));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        RecordingEventGateway events = new RecordingEventGateway();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        PaymentsWorker worker = new PaymentsWorker(payments, events, new ActivityMetrics(meters));
        CheckoutId id = new CheckoutId("chk-3ds");
        assertThat(meters.counter(ActivityMetrics.EXECUTIONS, "step", "authorize-payment", "outcome",
                "action_required").count()).as("the series exists before the first").isZero();

        inTransaction(() -> worker.on(new PaymentAuthorizationRequestedEvent(id, TENANT, AMOUNT, "tok_x",
                lease(id, Step.AUTHORIZE_PAYMENT, 1))));
        inTransaction(() -> worker.on(new PaymentAuthorizationRequestedEvent(id, TENANT, AMOUNT, "tok_x",
                lease(id, Step.AUTHORIZE_PAYMENT, 1))));

        PaymentAuthorizationActionRequiredEvent expected = new PaymentAuthorizationActionRequiredEvent(id, authOp(id),
                token(1), next, "REF-3DS");
        assertThat(events.published()).containsExactly(expected, expected);
        assertThat(provider.calls).containsExactly("authorize " + authOp(id));
        assertThat(payments.statusOf(authOp(id))).isEqualTo("ACTION_REQUIRED");
        assertThat(meters.counter(ActivityMetrics.EXECUTIONS, "step", "authorize-payment", "outcome",
                "action_required").count()).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT outcome_recorded_at IS NULL FROM payment_operations"
                + " WHERE operation_id = ?", Boolean.class, authOp(id).value())).as("not final").isTrue();

        // the provider's notification settled it on the checkout; the payments worker records it here
        inTransaction(() -> {
            payments.recordResolution(authOp(id), true, "REF-3DS", "recorded by checkout");
            return null;
        });
        assertThat(payments.statusOf(authOp(id))).isEqualTo("AUTHORIZED");
        assertThat(authorize(payments, id, 1).status()).isEqualTo(AuthorizationOutcome.Status.AUTHORIZED);
        assertThat(provider.calls).hasSize(1);
    }

    @Test
    void anOutcomeTheCheckoutLearnedElsewhereIsRecordedSoARedeliveredIntentDoesNotCallAgain() {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider()
                .then(answer(AuthorizationStatus.UNKNOWN, "no answer within PT2S"));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        CheckoutId id = new CheckoutId("chk-resolved");
        authorize(payments, id, 1);

        // a provider notification (or an operator) settled it on the checkout; the payments worker records it
        inTransaction(() -> {
            payments.recordResolution(authOp(id), true, "REF-WEBHOOK", "recorded by checkout");
            return null;
        });
        AuthorizationOutcome redelivered = authorize(payments, id, 1);

        assertThat(redelivered.status()).isEqualTo(AuthorizationOutcome.Status.AUTHORIZED);
        assertThat(redelivered.replayed()).isTrue();
        assertThat(redelivered.providerReference()).isEqualTo("REF-WEBHOOK");
        assertThat(provider.calls).containsExactly("authorize " + authOp(id));
        assertThat(jdbc.queryForObject("SELECT outcome_recorded_at IS NOT NULL FROM payment_operations"
                + " WHERE operation_id = ?", Boolean.class, authOp(id).value())).isTrue();
        // a decided row is never overwritten by a later resolution
        inTransaction(() -> {
            payments.recordResolution(authOp(id), false, null, "late");
            return null;
        });
        assertThat(payments.statusOf(authOp(id))).isEqualTo("AUTHORIZED");
    }

    @Test
    void theCheckoutsEchoOfAnOutcomeCommittedHereCostsNoStatementButARolledBackOneIsStillWritten() {
        // Counts UPDATE statements on the table, including those that match no row (a statement-level trigger fires
        // for them too): the echo of a decided row changes nothing durable, so the statement is what is counted.
        jdbc.execute("CREATE TABLE update_statements (n int)");
        jdbc.execute("CREATE FUNCTION count_update() RETURNS trigger LANGUAGE plpgsql AS"
                + " $$ BEGIN INSERT INTO update_statements VALUES (1); RETURN NULL; END $$");
        jdbc.execute("CREATE TRIGGER counted AFTER UPDATE ON payment_operations FOR EACH STATEMENT"
                + " EXECUTE FUNCTION count_update()");
        try {
            ScriptedPaymentProvider provider = new ScriptedPaymentProvider().then(authorized("REF-E1"))
                    .then(authorized("REF-E2")).then(answer(AuthorizationStatus.UNKNOWN, "no answer within PT2S"));
            PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
            CheckoutId here = new CheckoutId("chk-echo-1");
            authorize(payments, here, 1);
            int before = updates();
            inTransaction(() -> payments.recordResolution(authOp(here), true, "REF-E1", "recorded by checkout"));
            assertThat(updates()).as("the echo of an outcome committed here").isEqualTo(before);

            // decided, then rolled back: the row is not decided, so the checkout's outcome must still be written
            CheckoutId rolledBack = new CheckoutId("chk-echo-2");
            tx.executeWithoutResult(status -> {
                payments.authorize(rolledBack, TENANT, authOp(rolledBack), token(1), AMOUNT, "tok_approve");
                status.setRollbackOnly();
            });
            authorize(payments, rolledBack, 2); // the provider's answer lost this time: UNKNOWN until resolved
            inTransaction(() -> payments.recordResolution(authOp(rolledBack), true, "REF-N", "recorded by checkout"));
            assertThat(payments.statusOf(authOp(rolledBack))).isEqualTo("AUTHORIZED");
            assertThat(jdbc.queryForObject("SELECT provider_reference FROM payment_operations WHERE operation_id = ?",
                    String.class, authOp(rolledBack).value())).isEqualTo("REF-N");
        } finally {
            jdbc.execute("DROP TRIGGER counted ON payment_operations");
            jdbc.execute("DROP FUNCTION count_update()");
            jdbc.execute("DROP TABLE update_statements");
        }
    }

    private static int updates() {
        return jdbc.queryForObject("SELECT count(*) FROM update_statements", Integer.class);
    }

    @Test
    void aVoidSettlesAnUndecidedAuthorization() {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider()
                .then(answer(AuthorizationStatus.UNAVAILABLE, "provider unavailable (HTTP 503)"))
                .then(new CompensationAnswer(true, "VOID-1", null));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        CheckoutId id = new CheckoutId("chk-voided-undecided");
        OperationId voidOp = OperationId.of(id, Step.VOID_PAYMENT);
        authorize(payments, id, 1);
        inTransaction(() -> payments.voidAuthorization(id, TENANT, voidOp, token(1), authOp(id), AMOUNT));

        AuthorizationOutcome redelivered = authorize(payments, id, 1);

        assertThat(redelivered.status()).isEqualTo(AuthorizationOutcome.Status.DECLINED);
        assertThat(redelivered.replayed()).isTrue();
        assertThat(provider.calls).hasSize(2);
    }

    @Test
    void theSameLookupRoundDeliveredAgainGetsItsRecordedAnswer() {
        ScriptedPaymentProvider provider = new ScriptedPaymentProvider()
                .then(lookupAnswer(PaymentLookupOutcome.PENDING, null));
        PaymentsResource payments = new PaymentsResource(dataSource, provider, vault);
        CheckoutId id = new CheckoutId("chk-lookup-replay");
        OperationId lookupOp = OperationId.of(id, Step.RECONCILE_PAYMENT);

        LookupResult first = inTransaction(() -> payments.lookup(id, TENANT, lookupOp, token(4), authOp(id)));
        LookupResult again = inTransaction(() -> payments.lookup(id, TENANT, lookupOp, token(4), authOp(id)));

        assertThat(first.replayed()).isFalse();
        assertThat(again.replayed()).isTrue();
        assertThat(again.outcome()).isEqualTo(PaymentLookupOutcome.PENDING);
        assertThat(provider.calls).containsExactly("lookup " + authOp(id));
        assertThat(jdbc.queryForObject("SELECT attempts FROM payment_operations WHERE operation_id = ?",
                Integer.class, lookupOp.value())).isEqualTo(1);
    }
}
