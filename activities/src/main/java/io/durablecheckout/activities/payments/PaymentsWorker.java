package io.durablecheckout.activities.payments;

import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.activities.ActivityMetrics;
import io.durablecheckout.activities.IntentReports;
import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationActionRequiredEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationDeclinedEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationOutcomeUnknownEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationSucceededEvent;
import io.durablecheckout.api.activity.PaymentCaptureDeclinedEvent;
import io.durablecheckout.api.activity.PaymentCaptureOutcomeUnknownEvent;
import io.durablecheckout.api.activity.PaymentCaptureSucceededEvent;
import io.durablecheckout.api.activity.PaymentLookupAnsweredEvent;
import io.durablecheckout.api.activity.PaymentRefundSucceededEvent;
import io.durablecheckout.api.activity.PaymentVoidSucceededEvent;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentDeclinedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentCaptureRequestedEvent;
import io.durablecheckout.api.checkout.PaymentReconciliationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentRefundRequestedEvent;
import io.durablecheckout.api.checkout.PaymentVoidRequestedEvent;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.gateway.EventGateway;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Executes payment intents: the processor hands each one to {@link ProviderCalls} (a bounded number of provider
 * calls in flight, each in a transaction of its own; the batch commits once they ended) and goes on. The mapping that
 * matters: a timeout or PENDING is reported as outcome-unknown (never declined), a request for the customer (3-D
 * Secure) as such, and only a request the provider certainly did not process becomes a retryable attempt failure.
 */
@Component
@ProcessingGroup(PaymentsWorker.PROCESSING_GROUP)
@ConditionalOnProperty(name = {"checkout.activities.enabled", "checkout.activities.payments.enabled"}, havingValue = "true",
        matchIfMissing = true) // the service as its own process: docs/scaling.md
public class PaymentsWorker {

    public static final String PROCESSING_GROUP = "payments";

    private final PaymentsResource payments;
    private final IntentReports reports;
    private final ProviderCalls calls;

    /** Each intent's work on the caller's thread (tests that drive the worker directly). */
    public PaymentsWorker(PaymentsResource payments, EventGateway events, ActivityMetrics metrics) {
        this(payments, events, metrics, ProviderCalls.ON_CALLERS_THREAD);
    }

    @org.springframework.beans.factory.annotation.Autowired
    public PaymentsWorker(PaymentsResource payments, EventGateway events, ActivityMetrics metrics, ProviderCalls calls) {
        this.calls = calls;
        this.payments = payments;
        this.reports = new IntentReports(events, metrics, PaymentsResource.OPERATIONS_TABLE)
                .expecting(Step.AUTHORIZE_PAYMENT, AuthorizationOutcome.Status.values())
                .expecting(Step.RECONCILE_PAYMENT, PaymentLookupOutcome.values())
                .expecting(Step.CAPTURE_PAYMENT, CaptureOutcome.Status.values())
                .expecting(Step.VOID_PAYMENT, CompensationOutcome.Status.values())
                .expecting(Step.REFUND_PAYMENT, CompensationOutcome.Status.values());
    }

    @EventHandler
    public void on(PaymentAuthorizationRequestedEvent intent) {
        calls.submit(intent, () -> authorize(intent));
    }

    private void authorize(PaymentAuthorizationRequestedEvent intent) {
        Lease lease = intent.lease();
        AuthorizationOutcome outcome = payments.authorize(intent.checkoutId(), intent.tenantId(), lease.operationId(),
                lease.fencingToken(), intent.amount(), intent.paymentToken());
        ActivityResultEvent result = switch (outcome.status()) {
            case AUTHORIZED -> new PaymentAuthorizationSucceededEvent(intent.checkoutId(), lease.operationId(),
                    lease.fencingToken(), outcome.providerReference());
            case DECLINED -> new PaymentAuthorizationDeclinedEvent(intent.checkoutId(), lease.operationId(),
                    lease.fencingToken(), outcome.detail());
            case UNKNOWN -> new PaymentAuthorizationOutcomeUnknownEvent(intent.checkoutId(), lease.operationId(),
                    lease.fencingToken(), outcome.detail());
            case FAILED -> reports.attemptFailed(intent, outcome.detail());
            case STALE -> reports.stale(intent, outcome.highestAccepted());
            // the customer acts (3-D Secure); the provider's notification decides
            case ACTION_REQUIRED -> new PaymentAuthorizationActionRequiredEvent(intent.checkoutId(),
                    lease.operationId(), lease.fencingToken(), outcome.nextAction(), outcome.providerReference());
        };
        reports.publish(intent, outcome.status(), outcome.replayed(), result);
    }

    @EventHandler
    public void on(PaymentReconciliationRequestedEvent intent) {
        calls.submit(intent, () -> lookup(intent));
    }

    private void lookup(PaymentReconciliationRequestedEvent intent) {
        Lease lease = intent.lease();
        LookupResult lookup = payments.lookup(intent.checkoutId(), intent.tenantId(), lease.operationId(),
                lease.fencingToken(), intent.authorizationOperationId());
        if (lookup.stale()) {
            reports.publish(intent, "stale", reports.stale(intent, lookup.highestAccepted()));
            return;
        }
        reports.publish(intent, lookup.outcome(), lookup.replayed(),
                new PaymentLookupAnsweredEvent(intent.checkoutId(), lease.operationId(), lease.fencingToken(),
                        intent.authorizationOperationId(), lookup.outcome(), lookup.providerReference(),
                        lookup.detail()));
    }

    @EventHandler
    public void on(PaymentCaptureRequestedEvent intent) {
        calls.submit(intent, () -> capture(intent));
    }

    /** A capture timeout is unknown (asked again under the same id), never declined; only a refusal for good is. */
    private void capture(PaymentCaptureRequestedEvent intent) {
        Lease lease = intent.lease();
        CaptureOutcome outcome = payments.capture(intent.checkoutId(), intent.tenantId(), lease.operationId(),
                lease.fencingToken(), intent.authorizationOperationId(), intent.amount());
        ActivityResultEvent result = switch (outcome.status()) {
            case CAPTURED -> new PaymentCaptureSucceededEvent(intent.checkoutId(), lease.operationId(),
                    lease.fencingToken(), outcome.providerReference(), outcome.captured());
            case DECLINED -> new PaymentCaptureDeclinedEvent(intent.checkoutId(), lease.operationId(),
                    lease.fencingToken(), outcome.detail());
            case UNKNOWN -> new PaymentCaptureOutcomeUnknownEvent(intent.checkoutId(), lease.operationId(),
                    lease.fencingToken(), outcome.detail());
            case FAILED -> reports.attemptFailed(intent, outcome.detail());
            case STALE -> reports.stale(intent, outcome.highestAccepted());
        };
        reports.publish(intent, outcome.status(), outcome.replayed(), result);
    }

    @EventHandler
    public void on(PaymentVoidRequestedEvent intent) {
        calls.submit(intent, () -> voidPayment(intent));
    }

    private void voidPayment(PaymentVoidRequestedEvent intent) {
        Lease lease = intent.lease();
        CompensationOutcome outcome = payments.voidAuthorization(intent.checkoutId(), intent.tenantId(),
                lease.operationId(), lease.fencingToken(), intent.authorizationOperationId(), intent.amount());
        ActivityResultEvent result = switch (outcome.status()) {
            case DONE -> new PaymentVoidSucceededEvent(intent.checkoutId(), lease.operationId(), lease.fencingToken(),
                    outcome.providerReference());
            case FAILED -> reports.attemptFailed(intent, outcome.detail());
            case STALE -> reports.stale(intent, outcome.highestAccepted());
        };
        reports.publish(intent, outcome.status(), outcome.replayed(), result);
    }

    @EventHandler
    public void on(PaymentRefundRequestedEvent intent) {
        calls.submit(intent, () -> refund(intent));
    }

    private void refund(PaymentRefundRequestedEvent intent) {
        Lease lease = intent.lease();
        CompensationOutcome outcome = payments.refund(intent.checkoutId(), intent.tenantId(),
                lease.operationId(), lease.fencingToken(), intent.authorizationOperationId(), intent.amount());
        ActivityResultEvent result = switch (outcome.status()) {
            case DONE -> new PaymentRefundSucceededEvent(intent.checkoutId(), lease.operationId(),
                    lease.fencingToken(), outcome.providerReference());
            case FAILED -> reports.attemptFailed(intent, outcome.detail());
            case STALE -> reports.stale(intent, outcome.highestAccepted());
        };
        reports.publish(intent, outcome.status(), outcome.replayed(), result);
    }

    /**
     * The checkout decided its authorization, from whatever evidence (this worker, a lookup, a provider
     * notification, an operator). Recorded at the resource too, so a redelivered authorization intent is answered
     * from the record instead of calling the provider after the outcome is known.
     */
    @EventHandler
    public void on(PaymentAuthorizedEvent decided) {
        if (payments.decidedHere(decided.operationId())) {
            return; // decided and committed by this worker: nothing to write, no call thread needed
        }
        calls.submit(decided.checkoutId(), () -> payments.recordResolution(decided.operationId(), true, decided.providerReference(),
                "recorded by checkout " + decided.checkoutId()));
    }

    @EventHandler
    public void on(PaymentDeclinedEvent decided) {
        if (payments.decidedHere(decided.operationId())) {
            return;
        }
        // on a call thread too: the batch's own transaction then holds no payment row a later call of it needs
        calls.submit(decided.checkoutId(), () -> payments.recordResolution(decided.operationId(), false, null,
                "recorded by checkout " + decided.checkoutId() + (decided.reason() == null ? "" : ": "
                        + decided.reason())));
    }
}
