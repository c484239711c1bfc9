package io.durablecheckout.activities.inventory;

import io.durablecheckout.activities.ActivityMetrics;
import io.durablecheckout.activities.PostgresTestSupport;
import io.durablecheckout.activities.RecordingEventGateway;
import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.activity.StockReleaseSucceededEvent;
import io.durablecheckout.api.activity.StockReservationRejectedEvent;
import io.durablecheckout.api.activity.StockReservationSucceededEvent;
import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.StockReleaseRequestedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.query.FindUnknownSkusQuery;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static io.durablecheckout.activities.TestIntents.lease;
import static io.durablecheckout.activities.TestIntents.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InventoryResourceTest extends PostgresTestSupport {

    private static final TenantId TENANT = new TenantId("t1");
    private static final AtomicInteger SEQ = new AtomicInteger();

    private static InventoryResource inventory;
    private static InventoryAdmin admin;

    @BeforeAll
    static void setUp() {
        inventory = new InventoryResource(dataSource);
        admin = new InventoryAdmin(dataSource);
    }

    /** A fresh SKU per test, so tests never share stock. */
    private static Sku sku(long quantity) {
        Sku sku = new Sku("SKU-T" + SEQ.incrementAndGet());
        assertThat(admin.seed(TENANT, sku.value(), quantity)).isTrue();
        return sku;
    }

    private static CheckoutId checkout() {
        return new CheckoutId("chk-" + SEQ.incrementAndGet());
    }

    private static OperationId reserveOp(CheckoutId id) {
        return OperationId.of(id, Step.RESERVE_STOCK);
    }

    private static OperationId releaseOp(CheckoutId id) {
        return OperationId.of(id, Step.RELEASE_STOCK);
    }

    private static ReservationOutcome reserve(CheckoutId id, long token, LineItem... items) {
        return inTransaction(() -> inventory.reserve(id, TENANT, reserveOp(id), token(token), List.of(items)));
    }

    private static ReleaseOutcome release(CheckoutId id, long token) {
        return inTransaction(() -> inventory.release(id, TENANT, releaseOp(id), token(token), reserveOp(id)));
    }

    private static void assertLevel(Sku sku, long available, long reserved) {
        StockLevel level = admin.level(TENANT, sku);
        assertThat(level.available()).as("available of " + sku).isEqualTo(available);
        assertThat(level.reserved()).as("reserved of " + sku).isEqualTo(reserved);
        assertThat(level.conserved()).isTrue();
    }

    @Test
    void reservesStockAndRecordsTheLines() {
        Sku a = sku(10), b = sku(5);
        CheckoutId id = checkout();

        ReservationOutcome outcome = reserve(id, 1, new LineItem(a, 3), new LineItem(b, 5), new LineItem(a, 1));

        assertThat(outcome.status()).isEqualTo(ReservationOutcome.Status.RESERVED);
        assertThat(outcome.replayed()).isFalse();
        assertLevel(a, 6, 4);
        assertLevel(b, 0, 5);
        assertThat(jdbc.queryForObject("SELECT status FROM inventory_operations WHERE operation_id = ?",
                String.class, reserveOp(id).value())).isEqualTo("RESERVED");
        assertThat(jdbc.queryForList("SELECT sku || ':' || quantity FROM inventory_reservation_lines"
                + " WHERE operation_id = ? ORDER BY sku", String.class, reserveOp(id).value()))
                .containsExactlyInAnyOrder(a + ":4", b + ":5");
    }

    @Test
    void duplicateDeliveryAndNewOwnerReplayTheRecordedOutcomeWithoutReservingAgain() {
        Sku a = sku(10);
        CheckoutId id = checkout();
        reserve(id, 1, new LineItem(a, 4));

        ReservationOutcome duplicate = reserve(id, 1, new LineItem(a, 4));
        ReservationOutcome newOwner = reserve(id, 2, new LineItem(a, 4));

        assertThat(duplicate.status()).isEqualTo(ReservationOutcome.Status.RESERVED);
        assertThat(duplicate.replayed()).isTrue();
        assertThat(newOwner.status()).isEqualTo(ReservationOutcome.Status.RESERVED);
        assertThat(newOwner.replayed()).isTrue();
        assertLevel(a, 6, 4);
        assertThat(jdbc.queryForObject("SELECT fencing_token FROM inventory_operations WHERE operation_id = ?",
                Long.class, reserveOp(id).value())).isEqualTo(2L);
    }

    /** Regression (fault matrix, full redelivery): a sold reservation delivered again was reserved a second time. */
    @Test
    void aSoldReservationDeliveredAgainIsNotReservedAgain() {
        Sku a = sku(10);
        CheckoutId id = checkout();
        reserve(id, 1, new LineItem(a, 4));
        assertThat(inTransaction(() -> inventory.markSold(reserveOp(id)))).isEqualTo(4L);
        assertThat(inTransaction(() -> inventory.markSold(reserveOp(id)))).as("a confirmation delivered twice").isZero();

        ReservationOutcome redelivered = reserve(id, 1, new LineItem(a, 4));

        assertThat(redelivered.status()).isEqualTo(ReservationOutcome.Status.RESERVED);
        assertThat(redelivered.replayed()).isTrue();
        StockLevel level = admin.level(TENANT, a);
        assertThat(level.available()).isEqualTo(6);
        assertThat(level.reserved()).isZero();
        assertThat(level.sold()).isEqualTo(4);
    }

    @Test
    void aRefundedSaleGivesTheSoldUnitsBack() {
        Sku a = sku(10);
        CheckoutId id = checkout();
        reserve(id, 1, new LineItem(a, 4));
        inTransaction(() -> inventory.markSold(reserveOp(id)));

        release(id, 1);

        StockLevel level = admin.level(TENANT, a);
        assertThat(level.available()).isEqualTo(10);
        assertThat(level.sold()).isZero();
        assertThat(level.conserved()).isTrue();
    }

    @Test
    void staleOwnerIsRejectedWithoutTouchingStock() {
        Sku a = sku(10);
        CheckoutId id = checkout();
        reserve(id, 3, new LineItem(a, 2));

        ReservationOutcome stale = reserve(id, 2, new LineItem(a, 2));

        assertThat(stale.status()).isEqualTo(ReservationOutcome.Status.STALE);
        assertThat(stale.highestAccepted()).isEqualTo(new FencingToken(3));
        assertLevel(a, 8, 2);
        assertThat(jdbc.queryForObject("SELECT fencing_token FROM inventory_operations WHERE operation_id = ?",
                Long.class, reserveOp(id).value())).isEqualTo(3L);
    }

    @Test
    void staleOwnerArrivingBeforeTheNewOwnerRunsIsRejectedWhenTheNewOwnerWasFirst() {
        // A parked owner (token 1) resumes after the new owner (token 2) reserved: only one reservation exists.
        Sku a = sku(5);
        CheckoutId id = checkout();
        assertThat(reserve(id, 2, new LineItem(a, 5)).status()).isEqualTo(ReservationOutcome.Status.RESERVED);
        assertThat(reserve(id, 1, new LineItem(a, 5)).status()).isEqualTo(ReservationOutcome.Status.STALE);
        assertLevel(a, 0, 5);
    }

    @Test
    void outOfStockIsRejectedNamingTheSkuAndChangesNothing() {
        Sku a = sku(10), b = sku(2);
        CheckoutId id = checkout();

        ReservationOutcome outcome = reserve(id, 1, new LineItem(a, 1), new LineItem(b, 3));

        assertThat(outcome.status()).isEqualTo(ReservationOutcome.Status.REJECTED);
        assertThat(outcome.reason()).isEqualTo(CancellationReason.OUT_OF_STOCK);
        assertThat(outcome.detail()).contains(b.value()).contains("requested 3").contains("available 2");
        assertLevel(a, 10, 0);
        assertLevel(b, 2, 0);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM inventory_reservation_lines WHERE operation_id = ?",
                Integer.class, reserveOp(id).value())).as("lines of a rejected reservation").isZero();

        ReservationOutcome replay = reserve(id, 2, new LineItem(a, 1), new LineItem(b, 3));
        assertThat(replay.status()).isEqualTo(ReservationOutcome.Status.REJECTED);
        assertThat(replay.reason()).isEqualTo(CancellationReason.OUT_OF_STOCK);
        assertThat(replay.detail()).isEqualTo(outcome.detail());
        assertThat(replay.replayed()).isTrue();
    }

    @Test
    void unknownSkuIsRejected() {
        Sku a = sku(10);
        CheckoutId id = checkout();

        ReservationOutcome outcome = reserve(id, 1, new LineItem(a, 1), new LineItem(new Sku("NOPE-1"), 1));

        assertThat(outcome.status()).isEqualTo(ReservationOutcome.Status.REJECTED);
        assertThat(outcome.reason()).isEqualTo(CancellationReason.UNKNOWN_SKU);
        assertThat(outcome.detail()).contains("NOPE-1");
        assertLevel(a, 10, 0);
    }

    @Test
    void releaseGivesBackOnceEvenWhenDeliveredTwice() {
        Sku a = sku(10), b = sku(10);
        CheckoutId id = checkout();
        reserve(id, 1, new LineItem(a, 3), new LineItem(b, 7));

        ReleaseOutcome first = release(id, 1);
        ReleaseOutcome second = release(id, 1);
        ReleaseOutcome newOwner = release(id, 2);

        assertThat(first.status()).isEqualTo(ReleaseOutcome.Status.RELEASED);
        assertThat(first.unitsReturned()).isEqualTo(10);
        assertThat(first.replayed()).isFalse();
        assertThat(second.replayed()).isTrue();
        assertThat(newOwner.replayed()).isTrue();
        assertLevel(a, 10, 0);
        assertLevel(b, 10, 0);
        assertThat(jdbc.queryForObject("SELECT status FROM inventory_operations WHERE operation_id = ?",
                String.class, reserveOp(id).value())).isEqualTo("RELEASED");
        // A late duplicate of the reservation intent re-publishes success but does not reserve again.
        ReservationOutcome lateDuplicate = reserve(id, 1, new LineItem(a, 3), new LineItem(b, 7));
        assertThat(lateDuplicate.status()).isEqualTo(ReservationOutcome.Status.RESERVED);
        assertThat(lateDuplicate.replayed()).isTrue();
        assertLevel(a, 10, 0);
    }

    @Test
    void releaseOfARejectedReservationHasNothingToGiveBack() {
        Sku a = sku(1);
        CheckoutId id = checkout();
        reserve(id, 1, new LineItem(a, 2));

        ReleaseOutcome outcome = release(id, 1);

        assertThat(outcome.status()).isEqualTo(ReleaseOutcome.Status.RELEASED);
        assertThat(outcome.unitsReturned()).isZero();
        assertThat(outcome.detail()).contains("REJECTED");
        assertLevel(a, 1, 0);
    }

    @Test
    void releaseBeforeTheReservationRanFencesTheReservationOffForGood() {
        Sku a = sku(5);
        CheckoutId id = checkout();

        ReleaseOutcome outcome = release(id, 1);
        ReservationOutcome parkedOwner = reserve(id, 1, new LineItem(a, 5));

        assertThat(outcome.unitsReturned()).isZero();
        assertThat(parkedOwner.status()).isEqualTo(ReservationOutcome.Status.STALE);
        assertThat(parkedOwner.highestAccepted().value()).isEqualTo(Long.MAX_VALUE);
        assertLevel(a, 5, 0);
    }

    @Test
    void staleReleaseOwnerIsRejected() {
        Sku a = sku(5);
        CheckoutId id = checkout();
        reserve(id, 1, new LineItem(a, 5));
        release(id, 4);

        ReleaseOutcome stale = release(id, 3);

        assertThat(stale.status()).isEqualTo(ReleaseOutcome.Status.STALE);
        assertThat(stale.highestAccepted()).isEqualTo(new FencingToken(4));
        assertLevel(a, 5, 0);
    }

    @Test
    void aRolledBackUnitOfWorkLeavesNoTraceAndTheRedeliveryReserves() {
        Sku a = sku(5);
        CheckoutId id = checkout();
        assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
            inventory.reserve(id, TENANT, reserveOp(id), token(1), List.of(new LineItem(a, 2)));
            throw new IllegalStateException("crash before commit");
        })).isInstanceOf(IllegalStateException.class);
        assertLevel(a, 5, 0);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM inventory_operations WHERE operation_id = ?",
                Integer.class, reserveOp(id).value())).isZero();

        assertThat(reserve(id, 1, new LineItem(a, 2)).replayed()).isFalse();
        assertLevel(a, 3, 2);
    }

    @Test
    void stockIsConservedUnderConcurrentReservationsReleasesAndCompetingOwners() throws Exception {
        Sku a = sku(20), b = sku(20), c = sku(20);
        List<CheckoutId> ids = new ArrayList<>();
        for (int i = 0; i < 24; i++) ids.add(checkout());
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Callable<Object>> work = new ArrayList<>();
            for (int i = 0; i < ids.size(); i++) {
                CheckoutId id = ids.get(i);
                // Items in different orders, so only the SKU-ordered locking keeps this deadlock-free.
                LineItem[] items = i % 2 == 0
                        ? new LineItem[]{new LineItem(a, 2), new LineItem(b, 1), new LineItem(c, 1)}
                        : new LineItem[]{new LineItem(c, 2), new LineItem(a, 1), new LineItem(b, 2)};
                // Two owners of the same operation race: the effect must happen once.
                work.add(() -> reserve(id, 1, items));
                work.add(() -> reserve(id, 2, items));
                if (i % 3 == 0) work.add(() -> release(id, 1));
            }
            for (Future<Object> f : pool.invokeAll(work)) f.get();
        } finally {
            pool.shutdownNow();
        }
        for (Sku sku : List.of(a, b, c)) {
            StockLevel level = admin.level(TENANT, sku);
            assertThat(level.conserved()).isTrue();
            assertThat(level.available()).isBetween(0L, 20L);
            Long heldByReservations = jdbc.queryForObject("SELECT coalesce(sum(l.quantity), 0) FROM inventory_reservation_lines l"
                    + " JOIN inventory_operations o ON o.operation_id = l.operation_id"
                    + " WHERE o.status = 'RESERVED' AND l.sku = ?", Long.class, sku.value());
            assertThat(level.reserved()).isEqualTo(heldByReservations);
        }
        assertThat(admin.unconservedRows()).isZero();
        // Every reservation row holds lines only if it reserved, and at most one set of lines per operation.
        assertThat(jdbc.queryForObject("SELECT count(*) FROM inventory_reservation_lines l JOIN inventory_operations o"
                + " ON o.operation_id = l.operation_id WHERE o.status NOT IN ('RESERVED', 'RELEASED')", Integer.class)).isZero();
    }

    @Test
    void unknownSkusQueryAndDemoSeederAreIdempotent() {
        Sku a = sku(1);
        InventoryQueryHandler queries = new InventoryQueryHandler(admin);
        assertThat(queries.handle(new FindUnknownSkusQuery(TENANT, List.of(a, new Sku("X-1"), new Sku("X-1"))))
                .skus()).containsExactly(new Sku("X-1"));
        assertThat(queries.handle(new FindUnknownSkusQuery(TENANT, List.of())).skus()).isEmpty();

        DemoStockSeeder seeder = new DemoStockSeeder(admin, 25, 1000);
        assertThat(seeder.seed()).isEqualTo(25);
        assertThat(seeder.seed()).isZero();
        assertThat(admin.level(DemoStockSeeder.DEMO_TENANT, new Sku("SKU-0025")).available()).isEqualTo(1000);
        assertThat(admin.find(DemoStockSeeder.DEMO_TENANT, new Sku("SKU-0026"))).isEmpty();
        assertThat(DemoStockSeeder.demoSku(1000)).isEqualTo("SKU-1000");
    }

    @Test
    void workerPublishesOneResultPerIntentAndCountsIt() {
        Sku a = sku(3);
        CheckoutId id = checkout();
        RecordingEventGateway events = new RecordingEventGateway();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        InventoryWorker worker = new InventoryWorker(inventory, events, new ActivityMetrics(meters));

        StockReservationRequestedEvent intent = new StockReservationRequestedEvent(id, TENANT,
                List.of(new LineItem(a, 2)), lease(id, Step.RESERVE_STOCK, 2));
        inTransaction(() -> worker.on(intent));
        inTransaction(() -> worker.on(intent));
        StockReservationRequestedEvent staleIntent = new StockReservationRequestedEvent(id, TENANT,
                List.of(new LineItem(a, 2)), lease(id, Step.RESERVE_STOCK, 1));
        inTransaction(() -> worker.on(staleIntent));

        CheckoutId other = checkout();
        inTransaction(() -> worker.on(new StockReservationRequestedEvent(other, TENANT, List.of(new LineItem(a, 2)),
                lease(other, Step.RESERVE_STOCK, 1))));
        inTransaction(() -> worker.on(new StockReleaseRequestedEvent(id, TENANT, reserveOp(id),
                lease(id, Step.RELEASE_STOCK, 1))));

        assertThat(events.published()).containsExactly(
                new StockReservationSucceededEvent(id, reserveOp(id), token(2)),
                new StockReservationSucceededEvent(id, reserveOp(id), token(2)),
                new StaleOwnerRejectedEvent(id, Step.RESERVE_STOCK, reserveOp(id), token(1), token(2),
                        "inventory_operations"),
                new StockReservationRejectedEvent(other, reserveOp(other), token(1), CancellationReason.OUT_OF_STOCK,
                        "SKU " + a + ": requested 2, available 1"),
                new StockReleaseSucceededEvent(id, releaseOp(id), token(1)));
        assertLevel(a, 3, 0);
        assertThat(meters.counter(ActivityMetrics.EXECUTIONS, "step", "reserve-stock", "outcome", "reserved").count()).isEqualTo(1);
        assertThat(meters.counter(ActivityMetrics.EXECUTIONS, "step", "reserve-stock", "outcome", "duplicate").count()).isEqualTo(1);
        assertThat(meters.counter(ActivityMetrics.EXECUTIONS, "step", "reserve-stock", "outcome", "stale").count()).isEqualTo(1);
        assertThat(meters.counter(ActivityMetrics.EXECUTIONS, "step", "release-stock", "outcome", "released").count()).isEqualTo(1);
        assertThat(meters.counter(ActivityMetrics.STALE_REJECTED, "resource", "inventory_operations").count()).isEqualTo(1);
    }

    /**
     * A tenant the statistics do not know yet (a new catalogue, before autoanalyze) is estimated at one row. With the
     * key led by the tenant, the planner then entered it by tenant alone and filtered the SKUs: each statement read
     * the tenant's whole catalogue. Counted where it happens, in the key's index: entries read per checkout.
     */
    @Test
    void aCatalogueTheStatisticsDoNotKnowYetIsStillEnteredBySku() {
        TenantId fresh = new TenantId("t-new-catalogue");
        jdbc.execute("ALTER TABLE stock SET (autovacuum_enabled = false)"); // the statistics stay as analyzed below
        try {
            jdbc.execute("ANALYZE stock"); // they know the other tenants' rows, not this one's
            List<String> catalogue = new ArrayList<>();
            for (int i = 0; i < 5_000; i++) catalogue.add(String.format("NEW-%05d", i));
            assertThat(admin.seedAll(fresh, catalogue, 100)).isEqualTo(5_000);
            CheckoutId id = checkout();
            List<LineItem> items = List.of(new LineItem(new Sku("NEW-00017"), 2), new LineItem(new Sku("NEW-02500"), 1),
                    new LineItem(new Sku("NEW-04999"), 3));
            long before = indexEntriesRead();

            assertThat(admin.unknownSkus(fresh, List.of(new Sku("NEW-00017"), new Sku("NEW-09999"))))
                    .containsExactly(new Sku("NEW-09999"));
            assertThat(inTransaction(() -> inventory.reserve(id, fresh, reserveOp(id), token(1), items)).status())
                    .isEqualTo(ReservationOutcome.Status.RESERVED);
            assertThat(inTransaction(() -> inventory.markSold(reserveOp(id)))).isEqualTo(6);

            // the statistics arrive when each connection's backend ends; thousands per statement when entered by tenant
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> indexEntriesRead() > before);
            assertThat(indexEntriesRead() - before).as("index entries read for four statements on three SKUs")
                    .isLessThan(100);
        } finally {
            jdbc.execute("ALTER TABLE stock RESET (autovacuum_enabled)");
        }
    }

    private static long indexEntriesRead() {
        // a connection of its own each time: a fresh view of the statistics
        return jdbc.queryForObject("SELECT idx_tup_read FROM pg_stat_user_indexes WHERE indexrelname = 'pk_stock'",
                Long.class);
    }
}
