package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationOutcomeUnknownEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationSucceededEvent;
import io.durablecheckout.api.activity.PaymentLookupAnsweredEvent;
import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.activity.ReceiptDeliverySucceededEvent;
import io.durablecheckout.api.activity.StockReservationSucceededEvent;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;
import io.durablecheckout.api.checkout.CheckoutPolicy;
import io.durablecheckout.api.activity.PaymentCaptureSucceededEvent;
import io.durablecheckout.api.checkout.PaymentCaptureRequestedEvent;
import io.durablecheckout.api.checkout.PaymentCapturedEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.ReceiptRequestedEvent;
import io.durablecheckout.api.checkout.ReceiptSentEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.checkout.StockReservedEvent;
import io.durablecheckout.api.command.RecordActivityResultCommand;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.command.StartCheckoutCommand;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.test.aggregate.AggregateTestFixture;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One checkout's data, a fixed clock and a small policy, shared by the Checkout fixture tests. Histories are the
 * events the aggregate itself applies on the happy path, so a test can start from any state by naming it.
 * <p>
 * Within one step the attempt and the fencing token move in lockstep (both start at 1 and grow by one per lease),
 * so {@link #lease(Step, int, Instant)} takes one number for both.
 */
final class CheckoutScenario {

    static final CheckoutId ID = new CheckoutId("chk-0001");
    static final TenantId TENANT = new TenantId("tenant-a");
    static final List<LineItem> ITEMS = List.of(new LineItem(new Sku("SKU-RED-MUG"), 2));
    static final Money AMOUNT = new Money(2_500, "EUR");
    static final String PAYMENT_TOKEN = "pm_tok_visa";
    static final String EMAIL = "ada@example.test";
    static final String PROVIDER_REF = "psp-auth-42";
    static final String CAPTURE_REF = "psp-capture-42";

    /** When the checkout was requested; every other instant is an offset from it. */
    static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
    static final Instant RESERVED_AT = T0.plusSeconds(1);
    static final Instant AUTHORIZED_AT = T0.plusSeconds(2);
    static final Instant RECEIPT_AT = T0.plusSeconds(3);
    static final Instant CAPTURED_AT = T0.plusSeconds(4);

    static final Duration LEASE = Duration.ofSeconds(10);
    static final Duration PAYMENT_LEASE = Duration.ofSeconds(15);
    static final Duration RETRY_INITIAL = Duration.ofSeconds(1);
    static final Duration RECONCILIATION_INITIAL = Duration.ofSeconds(2);
    static final int MAX_ATTEMPTS = 3;
    static final int MAX_LOOKUPS = 3;

    /** Small budgets, so exhausting them takes a handful of events. */
    static final WorkflowPolicy POLICY = new WorkflowPolicy(LEASE, PAYMENT_LEASE, RETRY_INITIAL, Duration.ofSeconds(30),
            MAX_ATTEMPTS, RECONCILIATION_INITIAL, Duration.ofMinutes(5), MAX_LOOKUPS);

    private CheckoutScenario() {
    }

    static AggregateTestFixture<Checkout> fixture() {
        return fixture(true);
    }

    /** {@code intentsPassed}: what the steps' processors answer when a lease's deadline asks (IntentProgress). */
    static AggregateTestFixture<Checkout> fixture(boolean intentsPassed) {
        AggregateTestFixture<Checkout> fixture = new AggregateTestFixture<>(Checkout.class);
        fixture.registerInjectableResource(POLICY);
        fixture.registerInjectableResource((IntentProgress) (checkout, step, sequence) -> intentsPassed);
        return fixture;
    }

    // ------------------------------------------------------------------------------------------------ values

    static OperationId op(Step step) {
        return OperationId.of(ID, step);
    }

    static FencingToken token(long value) {
        return new FencingToken(value);
    }

    /** The {@code n}-th lease of {@code step} (attempt n, token n), granted at {@code grantedAt}. */
    static Lease lease(Step step, int n, Instant grantedAt) {
        return new Lease(op(step), n, token(n), grantedAt.plus(POLICY.leaseFor(step)));
    }

    // --------------------------------------------------------------------------------------------- commands

    static StartCheckoutCommand start() {
        return start(ITEMS, AMOUNT);
    }

    static StartCheckoutCommand start(io.durablecheckout.api.values.CaptureMode capture) {
        return new StartCheckoutCommand(ID, TENANT, ITEMS, AMOUNT, PAYMENT_TOKEN, EMAIL, "idem-1", "fp-1", T0, null,
                capture);
    }

    static StartCheckoutCommand start(List<LineItem> items, Money amount) {
        return new StartCheckoutCommand(ID, TENANT, items, amount, PAYMENT_TOKEN, EMAIL, "idem-1", "fp-1", T0);
    }

    static RecordActivityResultCommand record(ActivityResultEvent result, Instant observedAt) {
        return new RecordActivityResultCommand(ID, result, observedAt);
    }

    static RequestCancellationCommand cancel(Instant at) {
        return new RequestCancellationCommand(ID, CancellationReason.CUSTOMER_REQUEST, "changed my mind", null, at);
    }

    // ------------------------------------------------------------------------------------ activity results

    static StockReservationSucceededEvent stockReservationSucceeded(long token) {
        return new StockReservationSucceededEvent(ID, op(Step.RESERVE_STOCK), token(token));
    }

    static PaymentAuthorizationSucceededEvent authorizationSucceeded(long token) {
        return new PaymentAuthorizationSucceededEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(token), PROVIDER_REF);
    }

    static PaymentAuthorizationOutcomeUnknownEvent authorizationUnknown(long token) {
        return new PaymentAuthorizationOutcomeUnknownEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(token),
                "provider timeout");
    }

    static PaymentLookupAnsweredEvent lookupAnswered(long token, PaymentLookupOutcome outcome, String providerRef) {
        return new PaymentLookupAnsweredEvent(ID, op(Step.RECONCILE_PAYMENT), token(token), op(Step.AUTHORIZE_PAYMENT),
                outcome, providerRef, null);
    }

    static ReceiptDeliverySucceededEvent receiptDelivered(long token) {
        return new ReceiptDeliverySucceededEvent(ID, op(Step.SEND_RECEIPT), token(token));
    }

    static PaymentCaptureSucceededEvent captureSucceeded(long token) {
        return new PaymentCaptureSucceededEvent(ID, op(Step.CAPTURE_PAYMENT), token(token), CAPTURE_REF, AMOUNT);
    }

    static ActivityAttemptFailedEvent attemptFailed(Step step, long token) {
        return new ActivityAttemptFailedEvent(ID, step, op(step), token(token), "connection reset");
    }

    // ------------------------------------------------------------------------------------------- histories

    static CheckoutCreatedEvent created() {
        return new CheckoutCreatedEvent(ID, TENANT, ITEMS, AMOUNT, PAYMENT_TOKEN, EMAIL, "idem-1", "fp-1", T0,
                POLICY.recorded());
    }

    static StockReservationRequestedEvent reservationRequested(int n, Instant at) {
        return new StockReservationRequestedEvent(ID, TENANT, ITEMS, lease(Step.RESERVE_STOCK, n, at));
    }

    static PaymentAuthorizationRequestedEvent authorizationRequested(int n, Instant at) {
        return new PaymentAuthorizationRequestedEvent(ID, TENANT, AMOUNT, PAYMENT_TOKEN,
                lease(Step.AUTHORIZE_PAYMENT, n, at));
    }

    static ReceiptRequestedEvent receiptRequested(int n, Instant at) {
        return new ReceiptRequestedEvent(ID, TENANT, EMAIL, AMOUNT, lease(Step.SEND_RECEIPT, n, at));
    }

    /** State created: the reservation (lease 1) is in flight. */
    static List<Object> createdHistory() {
        return List.of(created(), reservationRequested(1, T0));
    }

    /** State stock_reserved: the authorization (lease 1) is in flight. */
    static List<Object> stockReservedHistory() {
        return concat(createdHistory(),
                new StockReservedEvent(ID, op(Step.RESERVE_STOCK), token(1)),
                authorizationRequested(1, RESERVED_AT));
    }

    /** The confirmation decided at {@code at}: the hold lapses a hold validity later. */
    static CheckoutConfirmedEvent confirmed(Instant at) {
        return new CheckoutConfirmedEvent(ID, at.plus(POLICY.holdValidity()));
    }

    static PaymentCaptureRequestedEvent captureRequested(int n, Instant at) {
        return new PaymentCaptureRequestedEvent(ID, TENANT, op(Step.AUTHORIZE_PAYMENT), AMOUNT,
                lease(Step.CAPTURE_PAYMENT, n, at));
    }

    /** State capture_pending: authorized and confirmed, the capture (lease 1) is in flight. */
    static List<Object> capturePendingHistory() {
        return concat(stockReservedHistory(),
                new PaymentAuthorizedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), PROVIDER_REF),
                confirmed(AUTHORIZED_AT),
                captureRequested(1, AUTHORIZED_AT));
    }

    /** State confirmed: captured (the capture's result recorded at once here), the receipt (lease 1) in flight. */
    static List<Object> confirmedHistory() {
        return concat(capturePendingHistory(),
                new PaymentCapturedEvent(ID, op(Step.CAPTURE_PAYMENT), token(1), CAPTURE_REF, AMOUNT),
                receiptRequested(1, AUTHORIZED_AT));
    }

    /** State completed: captured, the receipt sent, nothing in flight. */
    static List<Object> completedHistory() {
        return concat(confirmedHistory(),
                new ReceiptSentEvent(ID, op(Step.SEND_RECEIPT), token(1)),
                new CheckoutCompletedEvent(ID));
    }

    /** State confirmed under rules version 2 (no capture step): authorized, the receipt (lease 1) in flight. */
    static List<Object> confirmedHistoryUnderRules2() {
        return underRules2(concat(stockReservedHistory(),
                new PaymentAuthorizedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), PROVIDER_REF),
                new CheckoutConfirmedEvent(ID),
                receiptRequested(1, AUTHORIZED_AT)));
    }

    /**
     * The same history as recorded under rules version 2 (before capture was a step): its first event's policy says
     * version 2 with no capture mode, and its confirmation names no hold.
     */
    static List<Object> underRules2(List<Object> history) {
        CheckoutPolicy p = POLICY.recorded();
        CheckoutPolicy v2 = new CheckoutPolicy(2, p.leaseDuration(), p.paymentLeaseDuration(), p.retryInitialDelay(),
                p.retryMaxDelay(), p.maxAttempts(), p.reconciliationInitialDelay(), p.reconciliationMaxDelay(),
                p.reconciliationMaxLookups());
        return history.stream().map(e -> e instanceof CheckoutCreatedEvent c
                ? new CheckoutCreatedEvent(ID, TENANT, ITEMS, AMOUNT, PAYMENT_TOKEN, EMAIL, "idem-1", "fp-1", T0, v2)
                : e instanceof CheckoutConfirmedEvent ? new CheckoutConfirmedEvent(ID) : e).toList();
    }

    /** A deferred-capture checkout's history ({@code history} built for capture on confirmation). */
    static List<Object> deferred(List<Object> history) {
        return history.stream().map(e -> e instanceof CheckoutCreatedEvent c
                ? new CheckoutCreatedEvent(ID, TENANT, ITEMS, AMOUNT, PAYMENT_TOKEN, EMAIL, "idem-1", "fp-1", T0,
                        POLICY.recorded().capturing(io.durablecheckout.api.values.CaptureMode.DEFERRED))
                : e).toList();
    }

    /** State confirmed with a deferred capture: authorized, the receipt (lease 1) in flight. */
    static List<Object> deferredConfirmedHistory() {
        return deferred(concat(stockReservedHistory(),
                new PaymentAuthorizedEvent(ID, op(Step.AUTHORIZE_PAYMENT), token(1), PROVIDER_REF),
                confirmed(AUTHORIZED_AT),
                receiptRequested(1, AUTHORIZED_AT)));
    }

    /** State awaiting_capture (deferred capture): the receipt is sent, the tenant has not captured yet. */
    static List<Object> awaitingCaptureHistory() {
        return concat(deferredConfirmedHistory(),
                new ReceiptSentEvent(ID, op(Step.SEND_RECEIPT), token(1)),
                new io.durablecheckout.api.checkout.CaptureAwaitedEvent(ID, AUTHORIZED_AT.plus(POLICY.holdValidity())));
    }

    static Decision.Timer holdTimer(Instant confirmedAt) {
        return Decision.Timer.holdExpiry(confirmedAt.plus(POLICY.holdValidity()));
    }

    static List<Object> concat(List<Object> history, Object... more) {
        List<Object> all = new ArrayList<>(history);
        all.addAll(List.of(more));
        return all;
    }
}
