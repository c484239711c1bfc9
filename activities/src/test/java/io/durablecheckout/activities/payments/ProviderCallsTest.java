package io.durablecheckout.activities.payments;

import io.durablecheckout.activities.TestIntents;
import io.durablecheckout.api.checkout.PaymentAuthorizationRequestedEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.MetaData;
import org.axonframework.messaging.ResultMessage;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.messaging.unitofwork.BatchingUnitOfWork;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The payments worker's own provider-call concurrency inside a processor's batch: never more calls in flight than
 * allowed, the handing thread waits only while all are taken, the batch commits only once its calls ended (so its
 * processor never passes a call in flight), a failed call fails the batch and its redelivery runs on the processor's
 * thread (where the dead-letter policy judges it), one checkout's work keeps its order, each call runs in a unit of
 * work of its own, and outside a batch (an operator's retry, a test) the work runs on the caller's thread.
 */
class ProviderCallsTest {

    private static final CheckoutId CHECKOUT = new CheckoutId("co_calls");
    private static final PaymentAuthorizationRequestedEvent INTENT = new PaymentAuthorizationRequestedEvent(
            CHECKOUT, new TenantId("t1"), new Money(100, "EUR"), "tok",
            TestIntents.lease(CHECKOUT, Step.AUTHORIZE_PAYMENT, 1));

    private ProviderCalls calls;

    @AfterEach
    void close() {
        if (calls != null) {
            calls.close();
        }
    }

    private static List<EventMessage<?>> messages(int n) {
        List<EventMessage<?>> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(GenericEventMessage.asEventMessage(INTENT));
        }
        return all;
    }

    /** Runs a processor-like batch: {@code each} per message, then the commit; the failure of either, or null. */
    private static Throwable batch(List<EventMessage<?>> messages, Consumer<Message<?>> each) {
        BatchingUnitOfWork<EventMessage<?>> unitOfWork = new BatchingUnitOfWork<>(messages);
        try {
            ResultMessage<?> result = unitOfWork.executeWithResult(() -> {
                each.accept(CurrentUnitOfWork.get().getMessage());
                return null;
            });
            return result.isExceptional() ? result.exceptionResult() : null;
        } catch (Exception e) {
            return e;
        }
    }

    @Test
    void at_most_the_allowed_calls_run_at_once_and_the_batch_commits_only_once_they_ended() throws Exception {
        calls = new ProviderCalls(3, null, List::of);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        AtomicInteger handedOver = new AtomicInteger();
        AtomicInteger next = new AtomicInteger();
        CompletableFuture<Throwable> handing = CompletableFuture.supplyAsync(() -> batch(messages(8), m -> {
            calls.submit(new CheckoutId("co_" + next.incrementAndGet()), () -> {
                most.accumulateAndGet(running.incrementAndGet(), Math::max);
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                running.decrementAndGet();
                done.incrementAndGet();
            });
            handedOver.incrementAndGet();
        }));
        await().atMost(Duration.ofSeconds(10)).until(() -> calls.inFlight() == 3);
        assertThat(handedOver).as("three handed over, the fourth waits for a slot").hasValue(3);
        assertThat(handing).isNotDone();
        release.countDown();
        assertThat(handing.get(30, TimeUnit.SECONDS)).isNull();
        assertThat(done).as("the batch committed only after every call ended").hasValue(8);
        assertThat(most).as("never more than the allowed calls at once").hasValue(3);
        assertThat(calls.inFlight()).isZero();
    }

    @Test
    void a_failed_call_fails_its_batch_and_its_redelivery_runs_on_the_processors_thread() {
        calls = new ProviderCalls(2, null, List::of);
        List<EventMessage<?>> delivered = messages(2);
        AtomicReference<Message<?>> failing = new AtomicReference<>();
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        // the batch's first event fails (which call thread runs first is the scheduler's choice: not the failure)
        failing.set(delivered.get(0));
        Throwable first = batch(delivered, m -> calls.submit(new CheckoutId(m.getIdentifier()), () -> {
            if (m == failing.get()) {
                throw new IllegalStateException("provider_reference is too long");
            }
        }));
        assertThat(first).as("the batch fails, so its processor retries it").isNotNull();
        assertThat(first).hasStackTraceContaining("provider_reference is too long");
        assertThat(calls.inFlight()).as("a failed call frees its slot").isZero();

        Thread processor = Thread.currentThread();
        Throwable again = batch(delivered, m -> {
            try {
                calls.submit(new CheckoutId(m.getIdentifier()), () -> {
                    ranOn.add(Thread.currentThread());
                    if (m == failing.get()) {
                        throw new IllegalStateException("still too long");
                    }
                });
            } catch (IllegalStateException e) {
                assertThat(m).isSameAs(failing.get()); // reached the handler: the dead-letter policy parks it here
            }
        });
        assertThat(again).isNull();
        assertThat(ranOn).as("the failed event on the processor's thread, from there on the rest too")
                .containsOnly(processor).hasSize(2);
    }

    @Test
    void one_checkouts_work_in_a_batch_keeps_its_order() {
        calls = new ProviderCalls(4, null, List::of);
        List<String> order = new CopyOnWriteArrayList<>();
        AtomicInteger n = new AtomicInteger();
        Throwable failure = batch(messages(3), m -> {
            int i = n.incrementAndGet();
            calls.submit(CHECKOUT, () -> {
                if (i == 1) {
                    await().pollDelay(Duration.ofMillis(300)).until(() -> true); // the first is the slow one
                }
                order.add("event " + i);
            });
        });
        assertThat(failure).isNull();
        assertThat(order).containsExactly("event 1", "event 2", "event 3");
    }

    @Test
    void each_call_runs_in_its_own_unit_of_work_with_the_events_message_and_correlation_data() {
        CorrelationDataProvider traced = message -> Map.of("traceId", "trace-7");
        calls = new ProviderCalls(2, null, () -> List.of(traced));
        AtomicReference<Message<?>> delivered = new AtomicReference<>();
        AtomicReference<Message<?>> seen = new AtomicReference<>();
        AtomicReference<MetaData> created = new AtomicReference<>();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        Throwable failure = batch(messages(1), m -> {
            delivered.set(m);
            calls.submit(CHECKOUT, () -> {
                ranOn.set(Thread.currentThread());
                seen.set(CurrentUnitOfWork.get().getMessage());
                created.set(GenericEventMessage.asEventMessage("result").getMetaData());
            });
        });
        assertThat(failure).isNull();
        assertThat(ranOn.get()).isNotEqualTo(Thread.currentThread());
        assertThat(seen.get()).isSameAs(delivered.get());
        assertThat(created.get()).containsEntry("traceId", "trace-7");
    }

    @Test
    void outside_a_processors_batch_or_with_no_concurrency_of_its_own_the_work_runs_on_the_callers_thread() {
        calls = new ProviderCalls(2, null, List::of);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        calls.submit(CHECKOUT, () -> ranOn.set(Thread.currentThread()));
        assertThat(ranOn.get()).as("no unit of work").isSameAs(Thread.currentThread());

        ranOn.set(null);
        DefaultUnitOfWork<?> retry = DefaultUnitOfWork.startAndGet(GenericEventMessage.asEventMessage(INTENT));
        try {
            calls.submit(CHECKOUT, () -> ranOn.set(Thread.currentThread()));
        } finally {
            retry.commit();
        }
        assertThat(ranOn.get()).as("an operator's retry of a parked event").isSameAs(Thread.currentThread());

        ranOn.set(null);
        Throwable failure = batch(messages(1), m ->
                ProviderCalls.ON_CALLERS_THREAD.submit(CHECKOUT, () -> ranOn.set(Thread.currentThread())));
        assertThat(failure).isNull();
        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
        assertThat(ProviderCalls.ON_CALLERS_THREAD.maxConcurrent()).isZero();
    }
}
