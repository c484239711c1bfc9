package io.durablecheckout.activities.payments;

import io.durablecheckout.activities.PostgresTestSupport;
import io.durablecheckout.activities.TestIntents;
import io.durablecheckout.api.checkout.PaymentAuthorizationRequestedEvent;
import io.durablecheckout.api.checkout.PaymentCaptureRequestedEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.messaging.MetaData;
import org.axonframework.messaging.ResultMessage;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.messaging.unitofwork.BatchingUnitOfWork;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.spring.messaging.unitofwork.SpringTransactionManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The payments intake on a real PostgreSQL (decision 132): rows are queued only inside a processor's batch, drained
 * round robin over tenants rather than in insertion order, one checkout's rows in order and never two calls for one
 * row at once; a failed call is retried from the intake after a back-off, or parked and removed.
 */
class PaymentIntakeTest extends PostgresTestSupport {

    private final Map<String, DomainEventMessage<?>> events = new ConcurrentHashMap<>();
    private final List<String> parked = new CopyOnWriteArrayList<>();
    /** The rows whose checkout the dead-letter queue was asked about, and the claim's condition (null: every row). */
    private final List<String> askedBehind = new CopyOnWriteArrayList<>();
    private String parkedCondition;
    private PaymentIntake intake;

    @BeforeEach
    void empty() {
        jdbc.update("DELETE FROM payment_intake");
    }

    @AfterEach
    void close() {
        if (intake != null) {
            intake.close();
        }
    }

    private PaymentIntake intake(int drainers, Consumer<EventMessage<?>> work,
                                 List<CorrelationDataProvider> correlation) {
        return intake(drainers, work, correlation, Duration.ofMillis(100));
    }

    private PaymentIntake intake(int drainers, Consumer<EventMessage<?>> work,
                                 List<CorrelationDataProvider> correlation, Duration poll) {
        intake = new PaymentIntake(jdbc, new SpringTransactionManager(transactionManager), () -> correlation,
                (checkout, seq) -> events.get(checkout + "#" + seq),
                () -> new PaymentIntake.Parking() {
                    @Override
                    public boolean park(EventMessage<?> intent, Throwable failure) {
                        if (String.valueOf(failure.getMessage()).contains("poison")) {
                            parked.add(name(intent));
                            return true;
                        }
                        return false;
                    }

                    @Override
                    public String parkedCondition() {
                        return parkedCondition;
                    }

                    @Override
                    public boolean parkBehind(EventMessage<?> intent) {
                        askedBehind.add(name(intent));
                        String checkout = checkoutOf(intent);
                        if (parked.stream().noneMatch(p -> p.startsWith(checkout + "#"))) {
                            return false;
                        }
                        parked.add(name(intent));
                        return true;
                    }
                }, drainers, poll);
        intake.drainInto(work);
        return intake;
    }

    /** The event a processor delivers: the intent as event {@code seq} of its checkout. */
    private DomainEventMessage<?> event(String tenant, String checkout, long seq) {
        CheckoutId id = new CheckoutId(checkout);
        PaymentAuthorizationRequestedEvent intent = new PaymentAuthorizationRequestedEvent(id, new TenantId(tenant),
                new Money(100, "EUR"), "tok", TestIntents.lease(id, Step.AUTHORIZE_PAYMENT, seq));
        DomainEventMessage<?> message = new GenericDomainEventMessage<>("Checkout", checkout, seq, intent,
                MetaData.with("traceId", "trace-" + checkout));
        events.put(checkout + "#" + seq, message);
        return message;
    }

    /** A processor-like batch that queues each event's intent, committing in a transaction of its own. */
    private void queue(List<DomainEventMessage<?>> delivered) {
        BatchingUnitOfWork<EventMessage<?>> batch = new BatchingUnitOfWork<>(new ArrayList<>(delivered));
        batch.attachTransaction(new SpringTransactionManager(transactionManager));
        ResultMessage<?> result = batch.executeWithResult(() -> {
            assertThat(intake.accepts()).isTrue();
            intake.enqueue((PaymentAuthorizationRequestedEvent) CurrentUnitOfWork.get().getMessage().getPayload());
            return null;
        });
        assertThat(result.isExceptional()).as(String.valueOf(result.optionalExceptionResult())).isFalse();
    }

    private static String name(EventMessage<?> m) {
        return checkoutOf(m) + "#" + ((DomainEventMessage<?>) m).getSequenceNumber();
    }

    private static String checkoutOf(EventMessage<?> m) {
        return ((DomainEventMessage<?>) m).getAggregateIdentifier();
    }

    @Test
    void a_second_tenants_rows_are_taken_next_not_after_the_first_tenants_queue() throws Exception {
        List<String> order = new CopyOnWriteArrayList<>();
        java.util.concurrent.CountDownLatch firstCall = new java.util.concurrent.CountDownLatch(1);
        intake(1, m -> {
            order.add(checkoutOf(m));
            if (order.size() == 1) {
                try {
                    firstCall.await(); // the flooder's first call runs while the second tenant's rows arrive
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, List.of());
        List<DomainEventMessage<?>> rows = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            rows.add(event("flooder", "a" + i, 3));
        }
        queue(rows);
        intake.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> order.size() == 1);
        queue(List.of(event("shop", "b1", 3), event("shop", "b2", 3)));
        assertThat(intake.queued()).isEqualTo(8);
        firstCall.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> order.size() == 8);
        assertThat(order.subList(0, 4)).as("round robin over the tenants with rows, not insertion order")
                .containsExactly("a1", "b1", "a2", "b2");
        assertThat(order.stream().filter(c -> c.startsWith("a")).toList()).as("a tenant's own rows in its order")
                .containsExactly("a1", "a2", "a3", "a4", "a5", "a6");
        assertThat(intake.queued()).isZero();
    }

    @Test
    void inside_a_tenant_the_work_of_checkouts_under_way_goes_before_new_authorizations() {
        List<String> order = new CopyOnWriteArrayList<>();
        intake(1, m -> order.add(name(m)), List.of());
        List<DomainEventMessage<?>> rows = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            rows.add(event("flooder", "a" + i, 3));
        }
        queue(rows);
        queueCapture("flooder", "c1", 6);
        queueCapture("flooder", "c2", 6);
        intake.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> order.size() == 6);
        assertThat(order).as("captures queued last are taken first, then the authorizations in their order")
                .containsExactly("c1#6", "c2#6", "a1#3", "a2#3", "a3#3", "a4#3");
    }

    @Test
    void one_tenant_never_holds_every_drainer_so_another_tenants_row_is_taken_at_once() throws Exception {
        java.util.concurrent.CountDownLatch slowProvider = new java.util.concurrent.CountDownLatch(1);
        AtomicInteger flooderCalls = new AtomicInteger();
        AtomicInteger mostFlooderCalls = new AtomicInteger();
        List<String> shopDone = new CopyOnWriteArrayList<>();
        intake(16, m -> {
            if (checkoutOf(m).startsWith("b")) {
                shopDone.add(checkoutOf(m));
                return;
            }
            mostFlooderCalls.accumulateAndGet(flooderCalls.incrementAndGet(), Math::max);
            try {
                slowProvider.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                flooderCalls.decrementAndGet();
            }
        }, List.of());
        List<DomainEventMessage<?>> flood = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            flood.add(event("flooder", "a" + i, 3));
        }
        queue(flood);
        intake.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> flooderCalls.get() == PaymentIntake.perTenantLimit(16));
            queue(List.of(event("shop", "b1", 3)));
            await("the other tenant's row, while the flooder's calls all hang").atMost(Duration.ofSeconds(5))
                    .until(() -> shopDone.contains("b1"));
            assertThat(mostFlooderCalls.get()).as("the flooding tenant's calls at once, of 16 drainers").isEqualTo(15);
        } finally {
            slowProvider.countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> intake.queued() == 0);
    }

    @Test
    void a_tenant_at_its_share_keeps_its_drainers_busy_without_waiting_for_the_poll() throws Exception {
        java.util.concurrent.Semaphore provider = new java.util.concurrent.Semaphore(0);
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        // the poll is far longer than the waits below: only a drainer that looks again on its own keeps up
        intake(16, m -> {
            calls.incrementAndGet();
            try {
                provider.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                calls.decrementAndGet();
                done.incrementAndGet();
            }
        }, List.of(), Duration.ofSeconds(30));
        List<DomainEventMessage<?>> flood = new ArrayList<>();
        for (int i = 1; i <= 45; i++) {
            flood.add(event("flooder", "a" + i, 3));
        }
        queue(flood);
        intake.start();
        int share = PaymentIntake.perTenantLimit(16);
        try {
            await("the first wave at the tenant's share").atMost(Duration.ofSeconds(10))
                    .until(() -> calls.get() == share);
            provider.release(share); // the first wave ends: its drainers take the next rows themselves
            await("the second wave at the share at once, not one row per poll").atMost(Duration.ofSeconds(10))
                    .until(() -> done.get() == share && calls.get() == share);
        } finally {
            provider.release(1000);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> intake.queued() == 0);
    }

    /** A capture intent (a checkout under way) queued by a processor-like batch of its own. */
    private void queueCapture(String tenant, String checkout, long seq) {
        CheckoutId id = new CheckoutId(checkout);
        PaymentCaptureRequestedEvent intent = new PaymentCaptureRequestedEvent(id, new TenantId(tenant),
                new io.durablecheckout.api.values.OperationId(checkout + "/authorize-payment"), new Money(100, "EUR"),
                TestIntents.lease(id, Step.CAPTURE_PAYMENT, seq));
        DomainEventMessage<?> message = new GenericDomainEventMessage<>("Checkout", checkout, seq, intent);
        events.put(checkout + "#" + seq, message);
        BatchingUnitOfWork<EventMessage<?>> batch = new BatchingUnitOfWork<>(List.of(message));
        batch.attachTransaction(new SpringTransactionManager(transactionManager));
        ResultMessage<?> result = batch.executeWithResult(() -> {
            intake.enqueue(intent);
            return null;
        });
        assertThat(result.isExceptional()).as(String.valueOf(result.optionalExceptionResult())).isFalse();
    }

    @Test
    void one_checkouts_rows_keep_their_order_and_no_row_is_called_twice_at_once() {
        List<String> order = new CopyOnWriteArrayList<>();
        Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        AtomicInteger mostAtOnce = new AtomicInteger();
        intake(4, m -> {
            DomainEventMessage<?> e = (DomainEventMessage<?>) m;
            int now = running.computeIfAbsent(e.getAggregateIdentifier(), k -> new AtomicInteger()).incrementAndGet();
            mostAtOnce.accumulateAndGet(now, Math::max);
            if (e.getSequenceNumber() == 1) {
                await().pollDelay(Duration.ofMillis(300)).until(() -> true); // the earliest is the slow one
            }
            order.add(e.getAggregateIdentifier() + "#" + e.getSequenceNumber());
            running.get(e.getAggregateIdentifier()).decrementAndGet();
        }, List.of());
        queue(List.of(event("t", "c", 1), event("t", "c", 2), event("t", "d", 1), event("t", "c", 3),
                event("t", "d", 2)));
        intake.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> order.size() == 5);
        assertThat(order.stream().filter(s -> s.startsWith("c#")).toList()).containsExactly("c#1", "c#2", "c#3");
        assertThat(order.stream().filter(s -> s.startsWith("d#")).toList()).containsExactly("d#1", "d#2");
        assertThat(mostAtOnce).as("one call at a time per checkout").hasValue(1);
    }

    @Test
    void each_call_runs_in_a_unit_of_work_with_the_events_message_and_correlation_data() {
        CorrelationDataProvider traced = message -> Map.of("traceId", message.getMetaData().get("traceId"));
        AtomicReference<Object> seen = new AtomicReference<>();
        AtomicReference<MetaData> created = new AtomicReference<>();
        intake(2, m -> {
            seen.set(CurrentUnitOfWork.get().getMessage());
            created.set(GenericEventMessage.asEventMessage("result").getMetaData());
        }, List.of(traced));
        DomainEventMessage<?> delivered = event("t", "e", 4);
        queue(List.of(delivered));
        intake.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.get() != null);
        assertThat(seen.get()).isSameAs(delivered);
        assertThat(created.get()).containsEntry("traceId", "trace-e");
    }

    @Test
    void a_failed_call_is_retried_after_a_back_off_and_a_poison_one_is_parked_and_removed() {
        AtomicInteger attempts = new AtomicInteger();
        List<String> done = new CopyOnWriteArrayList<>();
        intake(2, m -> {
            String checkout = checkoutOf(m);
            if (checkout.equals("flaky") && attempts.incrementAndGet() == 1) {
                jdbc.update("INSERT INTO payment_intake (tenant_id, checkout_id, sequence_number) VALUES"
                        + " ('t', 'rolled-back', 1)"); // in the call's transaction: rolled back with it
                throw new IllegalStateException("connection lost");
            }
            if (name(m).equals("bad#2")) { // its later intent would succeed: it must not run
                throw new IllegalStateException("poison: provider_reference is too long");
            }
            done.add(checkout);
        }, List.of());
        queue(List.of(event("t", "flaky", 2), event("t", "bad", 2), event("t", "bad", 5)));
        intake.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> parked.contains("bad#5"));
        await().atMost(Duration.ofSeconds(10)).until(() -> done.contains("flaky"));
        assertThat(attempts).as("retried once, after its back-off").hasValue(2);
        assertThat(parked).as("the checkout's later intent parked behind, not called")
                .containsExactly("bad#2", "bad#5");
        assertThat(done).containsExactly("flaky");
        assertThat(intake.queued()).as("every row gone, the failed call's write rolled back").isZero();
    }

    @Test
    void the_dead_letter_queue_is_asked_only_for_rows_the_claim_found_may_be_parked() {
        parkedCondition = "checkout_id LIKE 'bad%'"; // the claim's answer: only bad's checkout may have parked events
        List<String> done = new CopyOnWriteArrayList<>();
        intake(1, m -> {
            if (name(m).equals("bad#2")) {
                throw new IllegalStateException("poison: provider_reference is too long");
            }
            done.add(name(m));
        }, List.of());
        queue(List.of(event("t", "bad", 2), event("t", "bad", 5), event("t", "ok", 1), event("t", "ok", 3)));
        intake.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> parked.contains("bad#5") && done.size() == 2);
        assertThat(parked).as("the later intent still parks behind").containsExactly("bad#2", "bad#5");
        assertThat(done).containsExactlyInAnyOrder("ok#1", "ok#3");
        assertThat(askedBehind).as("no query of the queue for a row the claim cleared")
                .containsExactlyInAnyOrder("bad#2", "bad#5");
    }

    @Test
    void a_batch_queues_its_intents_in_one_statement_as_it_commits() {
        AtomicInteger inserts = new AtomicInteger();
        javax.sql.DataSource counting = io.durablecheckout.activities.CountingDataSource.counting(dataSource,
                "INSERT INTO payment_intake", inserts);
        var transactions = new SpringTransactionManager(
                new org.springframework.jdbc.datasource.DataSourceTransactionManager(counting));
        intake = new PaymentIntake(new org.springframework.jdbc.core.JdbcTemplate(counting), transactions, List::of,
                (checkout, seq) -> events.get(checkout + "#" + seq), () -> PaymentIntake.Parking.NONE, 1,
                Duration.ofMillis(100));
        intake.drainInto(m -> { });
        BatchingUnitOfWork<EventMessage<?>> batch = new BatchingUnitOfWork<>(List.of(event("t", "a", 1),
                event("t", "b", 1), event("u", "c", 4)));
        batch.attachTransaction(transactions);
        batch.executeWithResult(() -> {
            intake.enqueue((PaymentAuthorizationRequestedEvent) CurrentUnitOfWork.get().getMessage().getPayload());
            assertThat(intake.queued()).as("nothing inserted before the batch commits").isZero();
            return null;
        });
        assertThat(inserts).as("one insert for the batch's three intents").hasValue(1);
        assertThat(jdbc.queryForList("SELECT checkout_id || '#' || sequence_number || '@' || tenant_id"
                + " FROM payment_intake ORDER BY checkout_id", String.class)).containsExactly("a#1@t", "b#1@t", "c#4@u");
    }

    @Test
    void outside_a_processors_batch_nothing_is_queued() {
        intake(1, m -> { }, List.of());
        assertThat(intake.accepts()).as("no unit of work").isFalse();
        DefaultUnitOfWork<?> retry = DefaultUnitOfWork.startAndGet(event("t", "r", 1));
        try {
            assertThat(intake.accepts()).as("an operator's retry of a parked event").isFalse();
        } finally {
            retry.commit();
        }
    }
}
