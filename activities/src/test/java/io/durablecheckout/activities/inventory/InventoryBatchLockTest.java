package io.durablecheckout.activities.inventory;

import io.durablecheckout.activities.PostgresTestSupport;
import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.messaging.ResultMessage;
import org.axonframework.messaging.unitofwork.BatchingUnitOfWork;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.spring.messaging.unitofwork.SpringTransactionManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import javax.sql.DataSource;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.durablecheckout.activities.TestIntents.lease;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decision 138: two "inventory" segments' batches, each a transaction of several stock statements, on the same stock
 * rows in opposite orders. Each batch's first stock statement locks every row the batch will touch, so the second
 * batch waits for the first instead of deadlocking with it; and no statement is added for it.
 */
class InventoryBatchLockTest extends PostgresTestSupport {

    private static final TenantId TENANT = new TenantId("t1");
    private static final AtomicInteger SEQ = new AtomicInteger();
    /** Statements prepared on the counted DataSource's connections. */
    private static final AtomicInteger STATEMENTS = new AtomicInteger();

    private static InventoryResource inventory;
    private static InventoryAdmin admin;
    private static SpringTransactionManager transactions;

    @BeforeAll
    static void setUp() {
        DataSource counted = counting(dataSource);
        inventory = new InventoryResource(counted);
        admin = new InventoryAdmin(dataSource);
        transactions = new SpringTransactionManager(new DataSourceTransactionManager(counted));
    }

    @Test
    void twoBatchesTakingTheSameRowsInOppositeOrdersDoNotDeadlock() throws Exception {
        Sku a = sku(), b = sku();
        CountDownLatch firstDone = new CountDownLatch(2);
        // one batch reserves b then a, the other a then b; each waits (at most 3 s) after its first intent until the
        // other did its first too: with per-statement locks both hold one row and want the other's
        CompletableFuture<ResultMessage<?>> one = CompletableFuture.supplyAsync(() ->
                batch(firstDone, reservation(b), reservation(a)));
        CompletableFuture<ResultMessage<?>> two = CompletableFuture.supplyAsync(() ->
                batch(firstDone, reservation(a), reservation(b)));

        for (ResultMessage<?> result : List.of(one.get(30, TimeUnit.SECONDS), two.get(30, TimeUnit.SECONDS))) {
            assertThat(result.isExceptional()).as(String.valueOf(result.optionalExceptionResult()
                    .map(e -> e.getCause() != null ? e.getCause().getMessage() : e.getMessage()).orElse(""))).isFalse();
        }
        assertThat(admin.level(TENANT, a).reserved()).isEqualTo(2);
        assertThat(admin.level(TENANT, b).reserved()).isEqualTo(2);
        assertThat(admin.unconservedRows()).isZero();
    }

    @Test
    void aBatchLocksItsRowsWithoutAStatementOfItsOwnAndSellsWhatItsConfirmationsReserved() {
        Sku a = sku(), b = sku();
        EventMessage<?> first = reservation(a, b);
        EventMessage<?> second = reservation(b);
        STATEMENTS.set(0);
        assertThat(batch(null, first, second).isExceptional()).isFalse();
        // per reservation: the fenced claim and the one reserving statement, as without the batch's locks
        assertThat(STATEMENTS.get()).isEqualTo(4);

        STATEMENTS.set(0);
        ResultMessage<?> sold = batch(null, confirmation(first), confirmation(second));
        assertThat(sold.isExceptional()).isFalse();
        assertThat(STATEMENTS.get()).as("one statement per sale").isEqualTo(2);
        assertThat(admin.level(TENANT, a).sold()).isEqualTo(1);
        assertThat(admin.level(TENANT, b).sold()).isEqualTo(2);
        assertThat(admin.level(TENANT, b).reserved()).isZero();
        assertThat(admin.unconservedRows()).isZero();
    }

    @Test
    void theBatchsRowsAreAddedOnlyToItsFirstStockStatementAndOnlyWhenItHasSeveral() {
        BatchStock single = BatchStock.of(List.of(reservation(sku())));
        assertThat(single.pending()).as("one stock intent locks in order by itself").isFalse();

        BatchStock several = BatchStock.of(List.of(reservation(sku()),
                GenericEventMessage.asEventMessage(new CheckoutConfirmedEvent(checkout(), null))));
        assertThat(several.pending()).isTrue();
        several.lockedBy();
        assertThat(several.pending()).isFalse();
        several.forget();
        assertThat(several.pending()).as("an intent rolled back to its savepoint released the locks").isTrue();
    }

    /**
     * Handles {@code messages} as the worker does, in one processor-like batch and transaction; with {@code firstDone},
     * counts it down after the first message and waits for the other batch's.
     */
    private static ResultMessage<?> batch(CountDownLatch firstDone, EventMessage<?>... messages) {
        BatchingUnitOfWork<EventMessage<?>> batch = new BatchingUnitOfWork<>(List.of(messages));
        batch.attachTransaction(transactions);
        AtomicInteger handled = new AtomicInteger();
        return batch.executeWithResult(() -> {
            Object payload = CurrentUnitOfWork.get().getMessage().getPayload();
            if (payload instanceof StockReservationRequestedEvent r) {
                inventory.reserve(r.checkoutId(), r.tenantId(), r.lease().operationId(), r.lease().fencingToken(),
                        r.items());
            } else if (payload instanceof CheckoutConfirmedEvent c) {
                inventory.markSold(OperationId.of(c.checkoutId(), Step.RESERVE_STOCK));
            }
            if (firstDone != null && handled.incrementAndGet() == 1) {
                firstDone.countDown();
                firstDone.await(3, TimeUnit.SECONDS);
            }
            return null;
        });
    }

    private static EventMessage<?> reservation(Sku... skus) {
        CheckoutId id = checkout();
        List<LineItem> items = java.util.Arrays.stream(skus).map(s -> new LineItem(s, 1)).toList();
        return GenericEventMessage.asEventMessage(new StockReservationRequestedEvent(id, TENANT, items,
                lease(id, Step.RESERVE_STOCK, 1)));
    }

    private static EventMessage<?> confirmation(EventMessage<?> reservation) {
        return GenericEventMessage.asEventMessage(new CheckoutConfirmedEvent(
                ((StockReservationRequestedEvent) reservation.getPayload()).checkoutId(), null));
    }

    private static Sku sku() {
        Sku sku = new Sku("SKU-B" + SEQ.incrementAndGet());
        assertThat(admin.seed(TENANT, sku.value(), 100)).isTrue();
        return sku;
    }

    private static CheckoutId checkout() {
        return new CheckoutId("chk-b" + SEQ.incrementAndGet());
    }

    /** {@code target} whose connections count the statements they prepare. */
    private static DataSource counting(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    if (!(result instanceof Connection connection)) {
                        return result;
                    }
                    return Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                            (p, m, a) -> {
                                if (m.getName().equals("prepareStatement") || m.getName().equals("createStatement")) {
                                    STATEMENTS.incrementAndGet();
                                }
                                return invoke(connection, m, a);
                            });
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
