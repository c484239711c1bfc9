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
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.util.HtmlUtils;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.gateway.EventGateway;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.Locale;
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
        OutboundMessage message = receipt(intent.customerEmail(), intent.checkoutId(), orderLines(intent.checkoutId()),
                intent.amount());
        Lease lease = intent.lease();
        DeliveryOutcome outcome = receipts.send(ReceiptsResource.Kind.RECEIPT, intent.checkoutId(), intent.tenantId(),
                lease.operationId(), lease.fencingToken(), message);
        publish(intent, outcome, new ReceiptDeliverySucceededEvent(intent.checkoutId(), lease.operationId(),
                lease.fencingToken()));
    }

    @EventHandler
    public void on(CancellationNoticeRequestedEvent intent) {
        String text = "Your order " + intent.checkoutId() + " was cancelled. Any amount held or charged is being returned.";
        OutboundMessage message = new OutboundMessage(intent.customerEmail(),
                "Your order " + intent.checkoutId() + " was cancelled", text + "\n",
                "<html><body><p>" + HtmlUtils.htmlEscape(text) + "</p></body></html>");
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

    /** The receipt: the order's lines and the amount, as plain text and as HTML. */
    static OutboundMessage receipt(String recipient, CheckoutId checkoutId, List<LineItem> lines, Money amount) {
        StringBuilder text = new StringBuilder("Thank you for your order " + checkoutId + ".\n\n");
        StringBuilder html = new StringBuilder("<html><body><p>Thank you for your order "
                + HtmlUtils.htmlEscape(checkoutId.value()) + ".</p>");
        if (!lines.isEmpty()) {
            html.append("<table><tr><th>Item</th><th>Quantity</th></tr>");
            for (LineItem line : lines) {
                text.append(String.format(Locale.ROOT, "  %-40s x %d%n", line.sku().value(), line.quantity()));
                html.append("<tr><td>").append(HtmlUtils.htmlEscape(line.sku().value())).append("</td><td>")
                        .append(line.quantity()).append("</td></tr>");
            }
            html.append("</table>");
            text.append('\n');
        }
        text.append("Amount authorized: ").append(formatAmount(amount)).append(".\n");
        html.append("<p>Amount authorized: <strong>").append(HtmlUtils.htmlEscape(formatAmount(amount)))
                .append("</strong></p></body></html>");
        return new OutboundMessage(recipient, "Your order " + checkoutId + " is confirmed", text.toString(),
                html.toString());
    }

    /**
     * The lines from the checkout's first event (the intent carries only the amount). None when there is no event
     * store in this context (a resource under test on its own).
     */
    private List<LineItem> orderLines(CheckoutId checkoutId) {
        Optional<EventStore> resolved = store;
        if (resolved == null) {
            store = resolved = Optional.ofNullable(eventStore.getIfAvailable());
        }
        if (resolved.isEmpty()) return List.of();
        DomainEventStream stream = resolved.get().readEvents(checkoutId.value(), 0);
        if (!stream.hasNext()) return List.of();
        DomainEventMessage<?> first = stream.next();
        return first.getPayload() instanceof CheckoutCreatedEvent created ? created.items() : List.of();
    }

    private static String formatAmount(Money amount) {
        if (amount == null) return "n/a";
        long minor = amount.minor();
        return String.format(Locale.ROOT, "%s%d.%02d %s", minor < 0 ? "-" : "", Math.abs(minor) / 100,
                Math.abs(minor) % 100, amount.currency());
    }
}
