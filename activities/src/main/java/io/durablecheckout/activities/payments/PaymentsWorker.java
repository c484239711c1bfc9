package io.durablecheckout.activities.payments;

import java.util.List;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.activities.ActivityMetrics;
import io.durablecheckout.activities.IntentResults;
import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationDeclinedEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationOutcomeUnknownEvent;
import io.durablecheckout.api.activity.PaymentAuthorizationSucceededEvent;
import io.durablecheckout.api.activity.PaymentLookupAnsweredEvent;
import io.durablecheckout.api.activity.PaymentRefundSucceededEvent;
import io.durablecheckout.api.activity.PaymentVoidSucceededEvent;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentDeclinedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizationRequestedEvent;
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
 * Executes payment intents in the "payments" processor's transaction. The mapping that matters: a timeout or
 * PENDING is reported as outcome-unknown (never declined), and only a request the provider certainly did not
 * process becomes a retryable attempt failure.
 */
@Component
@ProcessingGroup(PaymentsWorker.PROCESSING_GROUP)
@ConditionalOnProperty(name = {"checkout.activities.enabled", "checkout.activities.payments.enabled"}, havingValue = "true",
        matchIfMissing = true) // the service as its own process: docs/scaling.md
public class PaymentsWorker {

    public static final String PROCESSING_GROUP = "payments";

    private final PaymentsResource payments;
    private final EventGateway events;
    private final ActivityMetrics metrics;

    /** The lease hold and the pause hook around each intent are
     * {@link io.durablecheckout.activities.IntentHandling}'s, not the handlers'. */
    public PaymentsWorker(PaymentsResource payments, EventGateway events, ActivityMetrics metrics) {
        this.payments = payments;
        this.events = events;
        this.metrics = metrics;
        metrics.expect(Step.AUTHORIZE_PAYMENT, AuthorizationOutcome.Status.values(),
                PaymentsResource.OPERATIONS_TABLE);
        metrics.expect(Step.RECONCILE_PAYMENT,
                io.durablecheckout.api.activity.PaymentLookupOutcome.values(), PaymentsResource.OPERATIONS_TABLE);
        for (Step step : List.of(Step.VOID_PAYMENT,
                Step.REFUND_PAYMENT)) {
            metrics.expect(step, CompensationOutcome.Status.values(), PaymentsResource.OPERATIONS_TABLE);
        }
    }

    @EventHandler
    public void on(PaymentAuthorizationRequestedEvent intent) {
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
            case FAILED -> attemptFailed(intent, outcome.detail());
            case STALE -> stale(intent, outcome.highestAccepted());
        };
        publish(intent, IntentResults.outcomeTag(outcome.status(), outcome.replayed()), result);
    }

    @EventHandler
    public void on(PaymentReconciliationRequestedEvent intent) {
        Lease lease = intent.lease();
        LookupResult lookup = payments.lookup(intent.checkoutId(), intent.tenantId(), lease.operationId(),
                lease.fencingToken(), intent.authorizationOperationId());
        if (lookup.stale()) {
            publish(intent, "stale", stale(intent, lookup.highestAccepted()));
            return;
        }
        publish(intent, IntentResults.outcomeTag(lookup.outcome(), lookup.replayed()),
                new PaymentLookupAnsweredEvent(intent.checkoutId(), lease.operationId(), lease.fencingToken(),
                        intent.authorizationOperationId(), lookup.outcome(), lookup.providerReference(),
                        lookup.detail()));
    }

    @EventHandler
    public void on(PaymentVoidRequestedEvent intent) {
        Lease lease = intent.lease();
        CompensationOutcome outcome = payments.voidAuthorization(intent.checkoutId(), intent.tenantId(),
                lease.operationId(), lease.fencingToken(), intent.authorizationOperationId(), intent.amount());
        ActivityResultEvent result = switch (outcome.status()) {
            case DONE -> new PaymentVoidSucceededEvent(intent.checkoutId(), lease.operationId(), lease.fencingToken(),
                    outcome.providerReference());
            case FAILED -> attemptFailed(intent, outcome.detail());
            case STALE -> stale(intent, outcome.highestAccepted());
        };
        publish(intent, IntentResults.outcomeTag(outcome.status(), outcome.replayed()), result);
    }

    @EventHandler
    public void on(PaymentRefundRequestedEvent intent) {
        Lease lease = intent.lease();
        CompensationOutcome outcome = payments.refund(intent.checkoutId(), intent.tenantId(),
                lease.operationId(), lease.fencingToken(), intent.authorizationOperationId(), intent.amount());
        ActivityResultEvent result = switch (outcome.status()) {
            case DONE -> new PaymentRefundSucceededEvent(intent.checkoutId(), lease.operationId(),
                    lease.fencingToken(), outcome.providerReference());
            case FAILED -> attemptFailed(intent, outcome.detail());
            case STALE -> stale(intent, outcome.highestAccepted());
        };
        publish(intent, IntentResults.outcomeTag(outcome.status(), outcome.replayed()), result);
    }

    /**
     * The checkout decided its authorization, from whatever evidence (this worker, a lookup, a provider
     * notification, an operator). Recorded at the resource too, so a redelivered authorization intent is answered
     * from the record instead of calling the provider after the outcome is known.
     */
    @EventHandler
    public void on(PaymentAuthorizedEvent decided) {
        payments.recordResolution(decided.operationId(), true, decided.providerReference(),
                "recorded by checkout " + decided.checkoutId());
    }

    @EventHandler
    public void on(PaymentDeclinedEvent decided) {
        payments.recordResolution(decided.operationId(), false, null, "recorded by checkout " + decided.checkoutId()
                + (decided.reason() == null ? "" : ": " + decided.reason()));
    }

    private ActivityAttemptFailedEvent attemptFailed(ActivityIntent intent, String detail) {
        return new ActivityAttemptFailedEvent(intent.checkoutId(), intent.step(), intent.lease().operationId(),
                intent.lease().fencingToken(), detail);
    }

    private ActivityResultEvent stale(ActivityIntent intent, FencingToken highest) {
        metrics.staleRejected(PaymentsResource.OPERATIONS_TABLE);
        return IntentResults.staleOwner(intent, highest, PaymentsResource.OPERATIONS_TABLE);
    }

    private void publish(ActivityIntent intent, String outcomeTag, ActivityResultEvent result) {
        metrics.executed(intent.step(), outcomeTag);
        events.publish(result);
    }
}
