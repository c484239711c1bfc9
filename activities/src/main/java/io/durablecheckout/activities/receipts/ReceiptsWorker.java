package io.durablecheckout.activities.receipts;

import java.util.List;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.activities.ActivityMetrics;
import io.durablecheckout.activities.IntentResults;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.CancellationNoticeDeliverySucceededEvent;
import io.durablecheckout.api.activity.ReceiptDeliverySucceededEvent;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.CancellationNoticeRequestedEvent;
import io.durablecheckout.api.checkout.ReceiptRequestedEvent;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Money;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.gateway.EventGateway;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

import java.util.Locale;

/** Executes receipt and cancellation-notice intents in the "receipts" processor's transaction. */
@Component
@ProcessingGroup(ReceiptsWorker.PROCESSING_GROUP)
@ConditionalOnProperty(name = {"checkout.activities.enabled", "checkout.activities.receipts.enabled"}, havingValue = "true",
        matchIfMissing = true) // the service as its own process: docs/scaling.md
public class ReceiptsWorker {

    public static final String PROCESSING_GROUP = "receipts";

    private final ReceiptsResource receipts;
    private final EventGateway events;
    private final ActivityMetrics metrics;

    /** The lease hold and the pause hook around each intent are
     * {@link io.durablecheckout.activities.IntentHandling}'s, not the handlers'. */
    public ReceiptsWorker(ReceiptsResource receipts, EventGateway events, ActivityMetrics metrics) {
        this.receipts = receipts;
        this.events = events;
        this.metrics = metrics;
        for (Step step : List.of(Step.SEND_RECEIPT,
                Step.SEND_CANCELLATION_NOTICE)) {
            metrics.expect(step, DeliveryOutcome.Status.values(), ReceiptsResource.OPERATIONS_TABLE);
        }
    }

    @EventHandler
    public void on(ReceiptRequestedEvent intent) {
        OutboundMessage message = new OutboundMessage(intent.customerEmail(),
                "Your order " + intent.checkoutId() + " is confirmed",
                "Thank you for your order " + intent.checkoutId() + ".\n"
                        + "Amount authorized: " + formatAmount(intent.amount()) + ".\n");
        Lease lease = intent.lease();
        DeliveryOutcome outcome = receipts.send(ReceiptsResource.Kind.RECEIPT, intent.checkoutId(), intent.tenantId(),
                lease.operationId(), lease.fencingToken(), message);
        publish(intent, outcome, new ReceiptDeliverySucceededEvent(intent.checkoutId(), lease.operationId(),
                lease.fencingToken()));
    }

    @EventHandler
    public void on(CancellationNoticeRequestedEvent intent) {
        OutboundMessage message = new OutboundMessage(intent.customerEmail(),
                "Your order " + intent.checkoutId() + " was cancelled",
                "Your order " + intent.checkoutId() + " was cancelled. Any amount held or charged is being returned.\n");
        Lease lease = intent.lease();
        DeliveryOutcome outcome = receipts.send(ReceiptsResource.Kind.CANCELLATION_NOTICE, intent.checkoutId(),
                intent.tenantId(), lease.operationId(), lease.fencingToken(), message);
        publish(intent, outcome, new CancellationNoticeDeliverySucceededEvent(intent.checkoutId(),
                lease.operationId(), lease.fencingToken()));
    }

    private void publish(ActivityIntent intent, DeliveryOutcome outcome, ActivityResultEvent success) {
        ActivityResultEvent result = success;
        if (outcome.status() == DeliveryOutcome.Status.STALE) {
            metrics.staleRejected(ReceiptsResource.OPERATIONS_TABLE);
            result = IntentResults.staleOwner(intent, outcome.highestAccepted(), ReceiptsResource.OPERATIONS_TABLE);
        }
        metrics.executed(intent.step(), IntentResults.outcomeTag(outcome.status(), outcome.replayed()));
        events.publish(result);
    }

    private static String formatAmount(Money amount) {
        if (amount == null) return "n/a";
        long minor = amount.minor();
        return String.format(Locale.ROOT, "%s%d.%02d %s", minor < 0 ? "-" : "", Math.abs(minor) / 100,
                Math.abs(minor) % 100, amount.currency());
    }
}
