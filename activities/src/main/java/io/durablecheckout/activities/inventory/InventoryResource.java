package io.durablecheckout.activities.inventory;

import io.durablecheckout.activities.Bounds;
import io.durablecheckout.activities.FencedOperations;
import io.durablecheckout.activities.Savepoints;
import io.durablecheckout.activities.FencedOperations.Claim;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.TenantId;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Component;

import javax.sql.DataSource;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Stock reservations and releases, idempotent by operation id and fenced by token (see {@link FencedOperations}).
 * Pure JDBC: every method must run inside the caller's transaction (the worker's unit of work), so the stock
 * change, the operation's terminal status and the result event commit together or not at all.
 * <p>
 * Locks are always taken in the same order: operation row(s) first, then stock rows in SKU order, so concurrent
 * reservations and releases cannot deadlock each other. In a processor batch the first stock statement locks every
 * stock row the batch will touch ({@link BatchStock}), so each transaction takes its stock locks in one order and the
 * processor's segments cannot deadlock each other either (decision 138).
 */
@Component
@ConditionalOnProperty(name = {"checkout.activities.enabled", "checkout.activities.inventory.enabled"}, havingValue = "true",
        matchIfMissing = true) // the service as its own process: docs/scaling.md
public class InventoryResource {

    public static final String OPERATIONS_TABLE = "inventory_operations";
    /** Marks a reservation that its release overtook: no owner's token can ever claim it again. */
    static final long FENCED_FOREVER = Long.MAX_VALUE;

    private final NamedParameterJdbcTemplate jdbc;
    private final FencedOperations operations;
    private final Savepoints savepoints;

    public InventoryResource(DataSource dataSource) {
        this.jdbc = new NamedParameterJdbcTemplate(dataSource);
        this.savepoints = new Savepoints(dataSource);
        this.operations = new FencedOperations(jdbc, OPERATIONS_TABLE);
    }

    public ReservationOutcome reserve(CheckoutId checkoutId, TenantId tenantId, OperationId operationId,
                                      FencingToken token, List<LineItem> items) {
        BatchStock batch = BatchStock.current();
        return inBatch(batch, () -> savepoints.run(() -> reserveOnce(batch, checkoutId, tenantId, operationId, token,
                items)));
    }

    /** Runs one intent's work; if it fails, the batch's rows are locked again by the next stock statement. */
    private static <T> T inBatch(BatchStock batch, Supplier<T> work) {
        try {
            return work.get();
        } catch (RuntimeException e) {
            batch.forget();
            throw e;
        }
    }

    private ReservationOutcome reserveOnce(BatchStock batch, CheckoutId checkoutId, TenantId tenantId,
                                           OperationId operationId, FencingToken token, List<LineItem> items) {
        items.forEach(item -> Bounds.require("sku", item.sku().value(), Bounds.SKU));
        Claim claim = operations.claim(FencedOperations.baseColumns(operationId, "RESERVE", checkoutId.value(),
                tenantId.value(), token));
        if (claim.stale()) {
            return ReservationOutcome.stale(claim.highestAccepted());
        }
        switch (claim.status()) {
            case "RESERVED", "SOLD", "RELEASED":
                // It did reserve (and may since have been sold or given back): the recorded outcome is success.
                return ReservationOutcome.reserved(true);
            case "REJECTED":
                return ReservationOutcome.rejected(CancellationReason.valueOf(claim.string("reason")),
                        claim.string("detail"), true);
            case "CANCELLED":
                // Unreachable through the claim (fenced with the maximum token); kept so the switch is total.
                return ReservationOutcome.stale(claim.highestAccepted());
            case "STARTED":
                break; // this owner performs it now
            default:
                // Never guess "not done yet": redoing an effect is the one thing this table exists to prevent.
                throw new IllegalStateException("reservation " + operationId + " has unknown status " + claim.status());
        }

        SortedMap<String, Long> wanted = new TreeMap<>();
        for (LineItem item : items) {
            wanted.merge(item.sku().value(), (long) item.quantity(), Long::sum);
        }
        List<String> moved = reserveWhereEnough(batch, tenantId, operationId, wanted);
        if (moved.size() == wanted.size()) {
            return ReservationOutcome.reserved(false);
        }
        // A line is unknown or short: give back what moved (still locked by this transaction), then say why.
        SortedMap<String, Long> givenBack = new TreeMap<>();
        moved.forEach(sku -> givenBack.put(sku, wanted.get(sku)));
        if (!givenBack.isEmpty()) {
            jdbc.update("WITH " + LINES + " UPDATE stock s SET available = s.available + w.qty,"
                            + " reserved = s.reserved - w.qty, updated_at = now()"
                            + " FROM w WHERE s.sku = w.sku AND s.tenant_id = :tenant",
                    lines(givenBack).addValue("tenant", tenantId.value()));
        }
        Map<String, Long> available = lockStock(batch, tenantId.value(), wanted);
        for (String sku : wanted.keySet()) {
            if (!available.containsKey(sku)) {
                return reject(operationId, CancellationReason.UNKNOWN_SKU,
                        "unknown SKU " + sku + " for tenant " + tenantId.value());
            }
        }
        for (Map.Entry<String, Long> line : wanted.entrySet()) {
            long has = available.get(line.getKey());
            if (has < line.getValue()) {
                return reject(operationId, CancellationReason.OUT_OF_STOCK,
                        "SKU " + line.getKey() + ": requested " + line.getValue() + ", available " + has);
            }
        }
        // Enough now (units given back by others since): the rows are locked and checked, so every line moves.
        if (reserveWhereEnough(batch, tenantId, operationId, wanted).size() != wanted.size()) {
            throw new IllegalStateException("reservation " + operationId + ": locked stock changed under its lock");
        }
        return ReservationOutcome.reserved(false);
    }

    /**
     * The reservation in one statement (decision 82): the rows are locked in SKU order first (the initplan reads the
     * whole locking CTE before any row is updated), then each line moves only if its row, re-read by the UPDATE's own
     * check on the newest version, still has the quantity; the lines are recorded and the operation marked RESERVED
     * only if every line moved. Returns the SKUs that moved (all, or a part for the caller to give back). The first
     * stock statement of a batch locks the batch's other rows with its own ({@link BatchStock}).
     */
    private List<String> reserveWhereEnough(BatchStock batch, TenantId tenantId, OperationId operationId,
                                            SortedMap<String, Long> wanted) {
        List<String> moved = jdbc.queryForList("WITH " + LINES + ", " + BatchStock.ROWS
                        + ", locked AS (SELECT s.sku FROM stock s WHERE (s.tenant_id, s.sku) IN"
                        + " (SELECT CAST(:tenant AS text), sku FROM w UNION ALL SELECT tenant_id, sku FROM b)"
                        + " ORDER BY s.tenant_id, s.sku FOR UPDATE OF s)"
                        + ", moved AS (UPDATE stock s SET available = s.available - w.qty, reserved = s.reserved + w.qty,"
                        + " updated_at = now() FROM w WHERE s.sku = w.sku AND s.tenant_id = :tenant"
                        + " AND s.available >= w.qty AND (SELECT count(*) FROM locked) >= 0 RETURNING s.sku, w.qty)"
                        + ", recorded AS (INSERT INTO inventory_reservation_lines (operation_id, tenant_id, sku, quantity)"
                        + " SELECT :op, :tenant, sku, qty FROM moved WHERE (SELECT count(*) FROM moved) = :lines)"
                        + ", marked AS (UPDATE inventory_operations SET status = 'RESERVED', reason = NULL, detail = NULL,"
                        + " updated_at = now() WHERE operation_id = :op AND (SELECT count(*) FROM moved) = :lines)"
                        + " SELECT sku FROM moved",
                batch.addTo(lines(wanted)).addValue("op", operationId.value()).addValue("tenant", tenantId.value())
                        .addValue("lines", wanted.size()), String.class);
        batch.lockedBy();
        return moved;
    }

    /**
     * Gives back what the reservation under {@code reservationOperationId} holds. A reservation that never
     * reserved (rejected, or not run at all) has nothing to give back; one that has not run yet is fenced off for
     * good, so a parked owner of it cannot reserve after its compensation ran.
     */
    public ReleaseOutcome release(CheckoutId checkoutId, TenantId tenantId, OperationId releaseOperationId,
                                  FencingToken token, OperationId reservationOperationId) {
        BatchStock batch = BatchStock.current();
        return inBatch(batch, () -> savepoints.run(() -> releaseOnce(batch, checkoutId, tenantId, releaseOperationId,
                token, reservationOperationId)));
    }

    private ReleaseOutcome releaseOnce(BatchStock batch, CheckoutId checkoutId, TenantId tenantId,
                                       OperationId releaseOperationId, FencingToken token,
                                       OperationId reservationOperationId) {
        Map<String, Object> columns = FencedOperations.baseColumns(releaseOperationId, "RELEASE", checkoutId.value(),
                tenantId.value(), token);
        columns.put("reservation_operation_id", reservationOperationId.value());
        Claim claim = operations.claim(columns);
        if (claim.stale()) {
            return ReleaseOutcome.stale(claim.highestAccepted());
        }
        if ("RELEASED".equals(claim.status())) {
            return ReleaseOutcome.released(0, claim.string("detail"), true);
        }

        // Lock the reservation's row, creating a fenced tombstone if it was never written.
        String reservationStatus = jdbc.queryForObject(
                "INSERT INTO inventory_operations (operation_id, kind, checkout_id, tenant_id, fencing_token, status, detail)"
                        + " VALUES (:op, 'RESERVE', :checkout, :tenant, :fenced, 'CANCELLED', :detail)"
                        + " ON CONFLICT (operation_id) DO UPDATE SET updated_at = now()"
                        + " RETURNING status",
                new MapSqlParameterSource()
                        .addValue("op", reservationOperationId.value())
                        .addValue("checkout", checkoutId.value())
                        .addValue("tenant", tenantId.value())
                        .addValue("fenced", FENCED_FOREVER)
                        .addValue("detail", "released by " + releaseOperationId.value() + " before it was reserved"),
                String.class);

        long returned = 0;
        String detail;
        if ("RESERVED".equals(reservationStatus) || "SOLD".equals(reservationStatus)) {
            String heldIn = "SOLD".equals(reservationStatus) ? "sold" : "reserved"; // a refunded sale gives back sold units
            List<Map<String, Object>> lines = jdbc.queryForList(
                    "SELECT tenant_id, sku, quantity FROM inventory_reservation_lines WHERE operation_id = :op ORDER BY sku",
                    Map.of("op", reservationOperationId.value()));
            SortedMap<String, Long> held = new TreeMap<>();
            String stockTenant = tenantId.value();
            for (Map<String, Object> line : lines) {
                held.put((String) line.get("sku"), ((Number) line.get("quantity")).longValue());
                stockTenant = (String) line.get("tenant_id");
            }
            lockStock(batch, stockTenant, held);
            moveStock(stockTenant, held, "available", heldIn, reservationOperationId, "RELEASED",
                    "released by " + releaseOperationId.value());
            returned = held.values().stream().mapToLong(Long::longValue).sum();
            detail = "returned " + returned + " units of " + held.size() + " SKUs";
        } else {
            detail = "nothing held: reservation was " + reservationStatus;
        }
        setStatus(releaseOperationId, "RELEASED", null, detail);
        return ReleaseOutcome.released(returned, detail, false);
    }

    /**
     * The checkout was confirmed: its reservation becomes a sale (reserved → sold). Idempotent: only a reservation in
     * status RESERVED moves, so a redelivered confirmation, or one for a reservation released meanwhile, changes
     * nothing. No fencing token: this is the inventory's own bookkeeping of a decision already made, with one writer.
     *
     * @return units moved to sold (0 when there was nothing to move)
     */
    public long markSold(OperationId reservationOperationId) {
        BatchStock batch = BatchStock.current();
        return inBatch(batch, () -> savepoints.run(() -> markSoldOnce(batch, reservationOperationId)));
    }

    /**
     * One statement (decision 79): the reservation's row locked if it is RESERVED, then its stock rows in SKU order
     * (counted in full before anything moves, so every lock is taken in that order), the units moved reserved → sold
     * and the reservation marked SOLD. Answers the units moved.
     */
    private long markSoldOnce(BatchStock batch, OperationId reservationOperationId) {
        Long moved = jdbc.queryForObject("WITH " + BatchStock.ROWS + ", o AS (SELECT operation_id FROM inventory_operations"
                        + " WHERE operation_id = :op AND status = 'RESERVED' FOR UPDATE)"
                        + ", l AS (SELECT l.tenant_id, l.sku, l.quantity FROM inventory_reservation_lines l"
                        + " JOIN o ON o.operation_id = l.operation_id)"
                        + ", locked AS (SELECT s.sku FROM stock s WHERE (s.tenant_id, s.sku) IN"
                        + " (SELECT tenant_id, sku FROM l UNION ALL SELECT tenant_id, sku FROM b)"
                        + " ORDER BY s.tenant_id, s.sku FOR UPDATE OF s)"
                        + ", moved AS (UPDATE stock s SET sold = s.sold + l.quantity, reserved = s.reserved - l.quantity,"
                        + " updated_at = now() FROM l WHERE s.tenant_id = l.tenant_id AND s.sku = l.sku"
                        + " AND (SELECT count(*) FROM locked) > 0 RETURNING l.quantity)"
                        + ", marked AS (UPDATE inventory_operations SET status = 'SOLD', reason = NULL, detail = :detail,"
                        + " updated_at = now() WHERE operation_id IN (SELECT operation_id FROM o)"
                        + " AND EXISTS (SELECT 1 FROM l))"
                        + " SELECT coalesce(sum(quantity), 0) FROM moved",
                batch.addTo(new MapSqlParameterSource()).addValue("op", reservationOperationId.value())
                        .addValue("detail", "sold: checkout confirmed"), Long.class);
        batch.lockedBy();
        return moved == null ? 0 : moved;
    }

    /** The lines of one operation as a relation {@code w(sku, qty)}, from the parameters {@link #lines} sets. */
    private static final String LINES =
            "w AS (SELECT * FROM unnest(CAST(:skus AS text[]), CAST(:qtys AS bigint[])) AS w(sku, qty))";

    private static MapSqlParameterSource lines(SortedMap<String, Long> quantities) {
        return new MapSqlParameterSource()
                .addValue("skus", quantities.keySet().toArray(String[]::new))
                .addValue("qtys", quantities.values().toArray(Long[]::new));
    }

    /**
     * Moves each line's quantity from column {@code from} to column {@code to} of the tenant's stock rows and gives
     * the reservation its new status, in one statement (the rows are locked already: the reservation first, then
     * stock in SKU order by {@link #lockStock}). Column names are constants.
     */
    private void moveStock(String tenantId, SortedMap<String, Long> quantities, String to, String from,
                           OperationId reservation, String status, String detail) {
        jdbc.update("WITH " + LINES + ", moved AS (UPDATE stock s SET " + to + " = s." + to + " + w.qty, "
                        + from + " = s." + from + " - w.qty, updated_at = now()"
                        + " FROM w WHERE s.tenant_id = :tenant AND s.sku = w.sku)"
                        + " UPDATE inventory_operations SET status = :status, reason = NULL, detail = :detail,"
                        + " updated_at = now() WHERE operation_id = :op",
                lines(quantities).addValue("tenant", tenantId).addValue("op", reservation.value())
                        .addValue("status", status).addValue("detail", Bounds.clip(detail, Bounds.DETAIL)));
    }

    /**
     * Locks the tenant's stock rows for {@code skus} in SKU order (with the batch's other rows, if this is its first
     * stock statement); returns available by SKU (unknown SKUs absent).
     */
    private Map<String, Long> lockStock(BatchStock batch, String tenantId, SortedMap<String, Long> skus) {
        Map<String, Long> available = new TreeMap<>();
        if (skus.isEmpty()) return available;
        jdbc.query("WITH " + BatchStock.ROWS + " SELECT s.tenant_id, s.sku, s.available FROM stock s"
                        + " WHERE (s.tenant_id, s.sku) IN (SELECT CAST(:tenant AS text), unnest(CAST(:skus AS text[]))"
                        + " UNION ALL SELECT tenant_id, sku FROM b) ORDER BY s.tenant_id, s.sku FOR UPDATE OF s",
                batch.addTo(new MapSqlParameterSource()).addValue("tenant", tenantId)
                        .addValue("skus", skus.keySet().toArray(String[]::new)),
                rs -> {
                    if (tenantId.equals(rs.getString("tenant_id")) && skus.containsKey(rs.getString("sku"))) {
                        available.put(rs.getString("sku"), rs.getLong("available"));
                    }
                });
        batch.lockedBy();
        return available;
    }

    private ReservationOutcome reject(OperationId operationId, CancellationReason reason, String detail) {
        setStatus(operationId, "REJECTED", reason, detail);
        return ReservationOutcome.rejected(reason, detail, false);
    }

    private void setStatus(OperationId operationId, String status, CancellationReason reason, String detail) {
        jdbc.update("UPDATE inventory_operations SET status = :status, reason = :reason, detail = :detail, updated_at = now()"
                        + " WHERE operation_id = :op",
                new MapSqlParameterSource()
                        .addValue("op", operationId.value())
                        .addValue("status", status)
                        .addValue("reason", reason == null ? null : reason.name())
                        .addValue("detail", Bounds.clip(detail, Bounds.DETAIL)));
    }
}
