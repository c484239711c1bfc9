package io.durablecheckout.activities.inventory;

import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;
import io.durablecheckout.api.checkout.StockReleaseRequestedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.unitofwork.BatchingUnitOfWork;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Every stock row one "inventory" processor batch will touch, so that the batch's first stock statement locks them
 * all, in (tenant, SKU) order, before any of them changes (decision 138). A batch runs one statement per intent in one
 * transaction; each statement locks its own rows in SKU order, but two segments' batches took those statements' locks
 * in different overall orders and deadlocked. With every row locked by the first statement, each transaction takes
 * its stock locks in one ascending order, and later statements only touch rows it holds: no cycle between segments.
 * <p>
 * No statement of its own: the rows are the relation {@link #ROWS} that the first statement adds to the rows it locks
 * anyway (later statements of the batch get empty arrays). A reservation's rows are its items; a release's and a sale's
 * are the lines of the reservation they concern, read by that statement. Outside a processor batch (a parked intent
 * retried, a resource test), or in a batch with a single stock intent, there is nothing to add.
 */
final class BatchStock {

    /** The batch's rows as a relation {@code b(tenant_id, sku)}, from the parameters {@link #addTo} sets. */
    static final String ROWS = "b AS (SELECT * FROM unnest(CAST(:batchTenants AS text[]), CAST(:batchSkus AS text[]))"
            + " AS b(tenant_id, sku) UNION ALL SELECT tenant_id, sku FROM inventory_reservation_lines"
            + " WHERE operation_id = ANY(CAST(:batchReservations AS text[])))";

    private static final String RESOURCE = BatchStock.class.getName();
    private static final String[] NONE = new String[0];

    private final String[] tenants;
    private final String[] skus;
    private final String[] reservations;
    /** Whether the batch's rows have to be added at all: a batch with one stock intent locks in order as it is. */
    private final boolean needed;
    private boolean locked;

    private BatchStock(String[] tenants, String[] skus, String[] reservations, boolean needed) {
        this.tenants = tenants;
        this.skus = skus;
        this.reservations = reservations;
        this.needed = needed;
    }

    /** The current processor batch's rows, gathered once per batch; nothing outside a batch. */
    static BatchStock current() {
        if (!CurrentUnitOfWork.isStarted()) {
            return new BatchStock(NONE, NONE, NONE, false);
        }
        UnitOfWork<?> root = CurrentUnitOfWork.get().root();
        if (!(root instanceof BatchingUnitOfWork<?> batch)) {
            return new BatchStock(NONE, NONE, NONE, false);
        }
        return root.getOrComputeResource(RESOURCE, key -> of(batch.getMessages()));
    }

    /** The rows the stock intents among {@code messages} touch; none to add when fewer than two intents touch stock. */
    static BatchStock of(List<? extends Message<?>> messages) {
        List<String> tenants = new ArrayList<>();
        List<String> skus = new ArrayList<>();
        Set<String> reservations = new LinkedHashSet<>();
        int intents = 0;
        for (Message<?> message : messages) {
            Object payload = message.getPayload();
            if (payload instanceof StockReservationRequestedEvent reserve) {
                intents++;
                for (LineItem item : reserve.items()) {
                    tenants.add(reserve.tenantId().value());
                    skus.add(item.sku().value());
                }
            } else if (payload instanceof StockReleaseRequestedEvent release) {
                intents++;
                reservations.add(release.reservationOperationId().value());
            } else if (payload instanceof CheckoutConfirmedEvent confirmed) {
                intents++;
                reservations.add(OperationId.of(confirmed.checkoutId(), Step.RESERVE_STOCK).value());
            }
        }
        return new BatchStock(tenants.toArray(NONE), skus.toArray(NONE), reservations.toArray(NONE), intents > 1);
    }

    /**
     * Sets {@link #ROWS}'s parameters on {@code params}: the batch's rows if no statement of the batch locked them
     * yet, else none. Call {@link #lockedBy} once the statement ran.
     */
    MapSqlParameterSource addTo(MapSqlParameterSource params) {
        boolean add = pending();
        return params.addValue("batchTenants", add ? tenants : NONE).addValue("batchSkus", add ? skus : NONE)
                .addValue("batchReservations", add ? reservations : NONE);
    }

    /** The statement that got {@link #addTo}'s rows ran: they are locked until the batch's transaction ends. */
    void lockedBy() {
        locked = true;
    }

    /**
     * An intent failed: if it ran under a savepoint, its rollback released the locks its statements took, so the next
     * stock statement locks the batch's rows again (rows still held are locked again at no cost).
     */
    void forget() {
        locked = false;
    }

    /** Whether the next stock statement locks the batch's rows. */
    boolean pending() {
        return needed && !locked;
    }
}
