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
 * Executes payment intents: the processor queues each one in the {@link PaymentIntake} and goes on; the intake's
 * drainers (a bounded number of provider calls in flight, each in a transaction of its own) take them fairly across
 * tenants (decision 132). Resolutions, and intents outside a processor's batch, go to {@link ProviderCalls}. The
 * mapping that matters: a timeout or PENDING is reported as outcome-unknown (never declined), a request for the customer (3-D
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
    private final PaymentIntake intake;

    /** Each intent's work on the caller's thread (tests that drive the worker directly). */
    public PaymentsWorker(PaymentsResource payments, EventGateway events, ActivityMetrics metrics) {
        this(payments, events, metrics, ProviderCalls.ON_CALLERS_THREAD, (PaymentIntake) null);
    }

    @org.springframework.beans.factory.annotation.Autowired
    public PaymentsWorker(PaymentsResource payments, EventGateway events, ActivityMetrics metrics, ProviderCalls calls,
                          org.springframework.beans.factory.ObjectProvider<PaymentIntake> intake) {
        this(payments, events, metrics, calls, intake.getIfAvailable());
    }

    /**
     * @param intake where a processor's batch queues the intents (decision 132); null: handed to {@code calls} as
     *               before (decision 123)
     */
    public PaymentsWorker(PaymentsResource payments, EventGateway events, ActivityMetrics metrics, ProviderCalls calls,
                          PaymentIntake intake) {
        this.calls = calls;
        this.intake = intake;
        if (intake != null) {
            intake.drainInto(this::drained);
        }
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
        submit(intent, () -> authorize(intent));
    }

    /** Inside a processor's batch into the intake; otherwise (or without one) to the provider calls as before. */
    private void submit(ActivityIntent intent, Runnable work) {
        if (intake != null && intake.accepts()) {
            intake.enqueue(intent);
        } else {
            calls.submit(intent, work);
        }
    }

    /** An intent the intake's drainer took: its call, on the drainer's thread and in its unit of work. */
    private void drained(org.axonframework.eventhandling.EventMessage<?> message) {
        Object payload = message.getPayload();
        if (payload instanceof PaymentAuthorizationRequestedEvent intent) {
            authorize(intent);
        } else if (payload instanceof PaymentReconciliationRequestedEvent intent) {
            lookup(intent);
        } else if (payload instanceof PaymentCaptureRequestedEvent intent) {
            capture(intent);
        } else if (payload instanceof PaymentVoidRequestedEvent intent) {
            voidPayment(intent);
        } else if (payload instanceof PaymentRefundRequestedEvent intent) {
            refund(intent);
        } else {
            throw new IllegalArgumentException("not a payment intent: " + message.getPayloadType().getName());
        }
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
        submit(intent, () -> lookup(intent));
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
        submit(intent, () -> capture(intent));
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
        submit(intent, () -> voidPayment(intent));
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
        submit(intent, () -> refund(intent));
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
