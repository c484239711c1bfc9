package io.durablecheckout.activities.receipts;

import io.durablecheckout.api.values.Step;
import io.durablecheckout.activities.ActivityMetrics;
import io.durablecheckout.activities.IntentReports;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.CancellationNoticeDeliverySucceededEvent;
import io.durablecheckout.api.activity.ReceiptDeliverySucceededEvent;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.CancellationNoticeRequestedEvent;
import io.durablecheckout.api.checkout.ReceiptRequestedEvent;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.PaymentAuthorizedEvent;
import io.durablecheckout.api.checkout.PaymentRefundedEvent;
import io.durablecheckout.api.checkout.PaymentVoidedEvent;
import io.durablecheckout.api.checkout.PaymentCapturedEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.springframework.beans.factory.ObjectProvider;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.gateway.EventGateway;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Executes receipt and cancellation-notice intents in the "receipts" processor's transaction. */
@Component
@ProcessingGroup(ReceiptsWorker.PROCESSING_GROUP)
@ConditionalOnProperty(name = {"checkout.activities.enabled", "checkout.activities.receipts.enabled"}, havingValue = "true",
        matchIfMissing = true) // the service as its own process: docs/scaling.md
public class ReceiptsWorker {

    public static final String PROCESSING_GROUP = "receipts";

    private final ReceiptsResource receipts;
    private final IntentReports reports;
    private final ObjectProvider<EventStore> eventStore;
    /** Resolved once: asking the bean factory each time cost as much as reading the history (a profile). */
    private volatile Optional<EventStore> store;

    @org.springframework.beans.factory.annotation.Autowired
    public ReceiptsWorker(ReceiptsResource receipts, EventGateway events, ActivityMetrics metrics,
                          ObjectProvider<EventStore> eventStore) {
        this.receipts = receipts;
        this.reports = new IntentReports(events, metrics, ReceiptsResource.OPERATIONS_TABLE)
                .expecting(Step.SEND_RECEIPT, DeliveryOutcome.Status.values())
                .expecting(Step.SEND_CANCELLATION_NOTICE, DeliveryOutcome.Status.values());
        this.eventStore = eventStore;
    }

    /** Without an event store: receipts without their lines (tests of the resource). */
    public ReceiptsWorker(ReceiptsResource receipts, EventGateway events, ActivityMetrics metrics) {
        this(receipts, events, metrics, new org.springframework.beans.factory.support.StaticListableBeanFactory()
                .getBeanProvider(EventStore.class));
    }

    @EventHandler
    public void on(ReceiptRequestedEvent intent) {
        OutboundMessage message = ReceiptTexts.receipt(intent.customerEmail(), order(intent.checkoutId(),
                intent.amount()));
        Lease lease = intent.lease();
        DeliveryOutcome outcome = receipts.send(ReceiptsResource.Kind.RECEIPT, intent.checkoutId(), intent.tenantId(),
                lease.operationId(), lease.fencingToken(), message);
        publish(intent, outcome, new ReceiptDeliverySucceededEvent(intent.checkoutId(), lease.operationId(),
                lease.fencingToken()));
    }

    @EventHandler
    public void on(CancellationNoticeRequestedEvent intent) {
        OutboundMessage message = ReceiptTexts.cancellationNotice(intent.customerEmail(),
                order(intent.checkoutId(), null));
        Lease lease = intent.lease();
        DeliveryOutcome outcome = receipts.send(ReceiptsResource.Kind.CANCELLATION_NOTICE, intent.checkoutId(),
                intent.tenantId(), lease.operationId(), lease.fencingToken(), message);
        publish(intent, outcome, new CancellationNoticeDeliverySucceededEvent(intent.checkoutId(),
                lease.operationId(), lease.fencingToken()));
    }

    private void publish(ActivityIntent intent, DeliveryOutcome outcome, ActivityResultEvent success) {
        ActivityResultEvent result = success;
        if (outcome.status() == DeliveryOutcome.Status.FAILED) {
            // Final or not, reported as a failed attempt: a refused recipient is answered from the record (nothing is
            // sent again), so the attempts run out quickly and the checkout shows the answer in manual review.
            result = reports.attemptFailed(intent, (outcome.finalFailure() ? "final: " : "") + outcome.detail());
        } else if (outcome.status() == DeliveryOutcome.Status.STALE) {
            result = reports.stale(intent, outcome.highestAccepted());
        }
        reports.publish(intent, outcome.status(), outcome.replayed(), result);
    }

    /** The receipt of an order known only by its lines and amount (no details, no authorization time). */
    static OutboundMessage receipt(String recipient, CheckoutId checkoutId, List<LineItem> lines, Money amount) {
        return ReceiptTexts.receipt(recipient, new ReceiptTexts.Order(checkoutId, lines, amount, null, null, null, null));
    }

    /**
     * The order as the checkout's history tells it: lines, amount and receipt details from its first event, when the
     * payment was authorized, refunded or voided (the events' times). Only the amount when there is no event store in
     * this context (a resource under test on its own).
     */
    private ReceiptTexts.Order order(CheckoutId checkoutId, Money amount) {
        Optional<EventStore> resolved = store;
        if (resolved == null) {
            store = resolved = Optional.ofNullable(eventStore.getIfAvailable());
        }
        if (resolved.isEmpty()) return new ReceiptTexts.Order(checkoutId, List.of(), amount, null, null, null, null);
        DomainEventStream stream = resolved.get().readEvents(checkoutId.value(), 0);
        CheckoutCreatedEvent created = null;
        Instant authorized = null;
        Instant refunded = null;
        Instant voided = null;
        Money captured = null;
        Instant capturedAt = null;
        while (stream.hasNext()) {
            DomainEventMessage<?> m = stream.next();
            Object payload = m.getPayload();
            if (payload instanceof CheckoutCreatedEvent c) created = c;
            else if (payload instanceof PaymentAuthorizedEvent) authorized = m.getTimestamp();
            else if (payload instanceof PaymentRefundedEvent) refunded = m.getTimestamp();
            else if (payload instanceof PaymentVoidedEvent) voided = m.getTimestamp();
            else if (payload instanceof PaymentCapturedEvent c) {
                captured = c.amount();
                capturedAt = m.getTimestamp();
            }
        }
        if (created == null) return new ReceiptTexts.Order(checkoutId, List.of(), amount, null, null, null, null);
        return new ReceiptTexts.Order(checkoutId, created.items(), amount != null ? amount : created.amount(),
                created.receipt(), authorized, refunded, voided, created.policy() == null ? null
                : created.policy().capture(), captured, capturedAt);
    }
}
