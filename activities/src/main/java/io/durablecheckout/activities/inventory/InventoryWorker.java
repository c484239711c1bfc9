package io.durablecheckout.activities.inventory;

import io.durablecheckout.activities.ActivityMetrics;
import io.durablecheckout.activities.IntentResults;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.activity.StockReleaseSucceededEvent;
import io.durablecheckout.api.activity.StockReservationRejectedEvent;
import io.durablecheckout.api.activity.StockReservationSucceededEvent;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;
import io.durablecheckout.api.checkout.StockReleaseRequestedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.OperationId;
import org.axonframework.config.ProcessingGroup;
import org.axonframework.eventhandling.EventHandler;
import org.axonframework.eventhandling.gateway.EventGateway;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * Executes stock intents. Runs in the "inventory" streaming processor's unit of work, which is a Spring
 * transaction: the resource write and the published result commit together, so a crash leaves both or neither,
 * and redelivery after a crash finds the operation row and re-publishes instead of reserving twice.
 */
@Component
@ProcessingGroup(InventoryWorker.PROCESSING_GROUP)
@ConditionalOnProperty(name = {"checkout.activities.enabled", "checkout.activities.inventory.enabled"}, havingValue = "true",
        matchIfMissing = true) // the service as its own process: docs/scaling.md
public class InventoryWorker {

    public static final String PROCESSING_GROUP = "inventory";

    private final InventoryResource inventory;
    private final EventGateway events;
    private final ActivityMetrics metrics;

    /** The lease hold and the pause hook around each intent are
     * {@link io.durablecheckout.activities.IntentHandling}'s, not the handlers'. */
    public InventoryWorker(InventoryResource inventory, EventGateway events, ActivityMetrics metrics) {
        this.inventory = inventory;
        this.events = events;
        this.metrics = metrics;
        metrics.expect(Step.RESERVE_STOCK, ReservationOutcome.Status.values(),
                InventoryResource.OPERATIONS_TABLE);
        metrics.expect(Step.RELEASE_STOCK, ReleaseOutcome.Status.values(),
                InventoryResource.OPERATIONS_TABLE);
    }

    @EventHandler
    public void on(StockReservationRequestedEvent intent) {
        Lease lease = intent.lease();
        ReservationOutcome outcome = inventory.reserve(intent.checkoutId(), intent.tenantId(), lease.operationId(),
                lease.fencingToken(), intent.items());
        ActivityResultEvent result = switch (outcome.status()) {
            case RESERVED -> new StockReservationSucceededEvent(intent.checkoutId(), lease.operationId(),
                    lease.fencingToken());
            case REJECTED -> new StockReservationRejectedEvent(intent.checkoutId(), lease.operationId(),
                    lease.fencingToken(), outcome.reason(), outcome.detail());
            case STALE -> stale(intent, outcome.highestAccepted());
        };
        metrics.executed(intent.step(), IntentResults.outcomeTag(outcome.status(), outcome.replayed()));
        events.publish(result);
    }

    @EventHandler
    public void on(StockReleaseRequestedEvent intent) {
        Lease lease = intent.lease();
        ReleaseOutcome outcome = inventory.release(intent.checkoutId(), intent.tenantId(), lease.operationId(),
                lease.fencingToken(), intent.reservationOperationId());
        ActivityResultEvent result = switch (outcome.status()) {
            case RELEASED -> new StockReleaseSucceededEvent(intent.checkoutId(), lease.operationId(),
                    lease.fencingToken());
            case STALE -> stale(intent, outcome.highestAccepted());
        };
        metrics.executed(intent.step(), IntentResults.outcomeTag(outcome.status(), outcome.replayed()));
        events.publish(result);
    }

    /** A confirmed order is a sale: what its reservation held is now sold (the books, not a side effect). */
    @EventHandler
    public void on(CheckoutConfirmedEvent confirmed) {
        inventory.markSold(OperationId.of(confirmed.checkoutId(), Step.RESERVE_STOCK));
    }

    private StaleOwnerRejectedEvent stale(ActivityIntent intent, FencingToken highestAccepted) {
        metrics.staleRejected(InventoryResource.OPERATIONS_TABLE);
        return IntentResults.staleOwner(intent, highestAccepted, InventoryResource.OPERATIONS_TABLE);
    }
}
