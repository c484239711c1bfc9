package io.durablecheckout.activities.inventory;

import io.durablecheckout.activities.ActivityMetrics;
import io.durablecheckout.activities.IntentReports;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.StockReleaseSucceededEvent;
import io.durablecheckout.api.activity.StockReservationRejectedEvent;
import io.durablecheckout.api.activity.StockReservationSucceededEvent;
import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;
import io.durablecheckout.api.checkout.StockReleaseRequestedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
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
    private final IntentReports reports;

    public InventoryWorker(InventoryResource inventory, EventGateway events, ActivityMetrics metrics) {
        this.inventory = inventory;
        this.reports = new IntentReports(events, metrics, InventoryResource.OPERATIONS_TABLE)
                .expecting(Step.RESERVE_STOCK, ReservationOutcome.Status.values())
                .expecting(Step.RELEASE_STOCK, ReleaseOutcome.Status.values());
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
            case STALE -> reports.stale(intent, outcome.highestAccepted());
        };
        reports.publish(intent, outcome.status(), outcome.replayed(), result);
    }

    @EventHandler
    public void on(StockReleaseRequestedEvent intent) {
        Lease lease = intent.lease();
        ReleaseOutcome outcome = inventory.release(intent.checkoutId(), intent.tenantId(), lease.operationId(),
                lease.fencingToken(), intent.reservationOperationId());
        ActivityResultEvent result = switch (outcome.status()) {
            case RELEASED -> new StockReleaseSucceededEvent(intent.checkoutId(), lease.operationId(),
                    lease.fencingToken());
            case STALE -> reports.stale(intent, outcome.highestAccepted());
        };
        reports.publish(intent, outcome.status(), outcome.replayed(), result);
    }

    /** A confirmed order is a sale: what its reservation held is now sold (the books, not a side effect). */
    @EventHandler
    public void on(CheckoutConfirmedEvent confirmed) {
        inventory.markSold(OperationId.of(confirmed.checkoutId(), Step.RESERVE_STOCK));
    }
}
