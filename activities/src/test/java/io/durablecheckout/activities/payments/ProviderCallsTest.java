package io.durablecheckout.activities.payments;

import io.durablecheckout.activities.TestIntents;
import io.durablecheckout.api.checkout.PaymentAuthorizationRequestedEvent;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.MetaData;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The payments worker's own provider-call concurrency: never more calls in flight than allowed, the handing thread
 * waits only while all are taken, a failed call frees its slot, and each call runs in a unit of work of its own
 * begun with the intent's message and the application's correlation data.
 */
class ProviderCallsTest {

    private static final PaymentAuthorizationRequestedEvent INTENT = new PaymentAuthorizationRequestedEvent(
            new CheckoutId("co_calls"), new TenantId("t1"), new Money(100, "EUR"), "tok",
            TestIntents.lease(new CheckoutId("co_calls"), Step.AUTHORIZE_PAYMENT, 1));

    private ProviderCalls calls;

    @AfterEach
    void close() {
        if (calls != null) {
            calls.close();
        }
    }

    @Test
    void at_most_the_allowed_calls_run_at_once_and_the_handing_thread_waits_only_while_all_are_taken() throws Exception {
        calls = new ProviderCalls(3, null, List::of);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        AtomicInteger handedOver = new AtomicInteger();
        CompletableFuture<Void> handing = CompletableFuture.runAsync(() -> {
            for (int i = 0; i < 8; i++) {
                calls.submit(INTENT, () -> {
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
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> calls.inFlight() == 3);
        assertThat(handedOver).as("three handed over, the fourth waits for a slot").hasValue(3);
        assertThat(handing).isNotDone();
        release.countDown();
        handing.get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> done.get() == 8);
        assertThat(most).as("never more than the allowed calls at once").hasValue(3);
        assertThat(calls.inFlight()).isZero();
    }

    @Test
    void a_failed_call_frees_its_slot_and_does_not_reach_the_handing_thread() {
        calls = new ProviderCalls(1, null, List::of);
        calls.submit(INTENT, () -> {
            throw new IllegalStateException("provider exploded");
        });
        AtomicInteger after = new AtomicInteger();
        calls.submit(INTENT, after::incrementAndGet);
        await().atMost(Duration.ofSeconds(10)).until(() -> after.get() == 1);
    }

    @Test
    void each_call_runs_in_its_own_unit_of_work_with_the_intents_message_and_correlation_data() {
        CorrelationDataProvider traced = message -> Map.of("traceId", "trace-7");
        calls = new ProviderCalls(2, null, () -> List.of(traced));
        Message<?> intentMessage = GenericEventMessage.asEventMessage(INTENT);
        AtomicReference<Message<?>> seen = new AtomicReference<>();
        AtomicReference<MetaData> created = new AtomicReference<>();
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        DefaultUnitOfWork<?> processor = DefaultUnitOfWork.startAndGet(intentMessage);
        try {
            calls.submit(INTENT, () -> {
                ranOn.set(Thread.currentThread());
                seen.set(CurrentUnitOfWork.get().getMessage());
                created.set(GenericEventMessage.asEventMessage("result").getMetaData());
            });
        } finally {
            processor.commit();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> created.get() != null);
        assertThat(ranOn.get()).isNotEqualTo(Thread.currentThread());
        assertThat(seen.get()).isSameAs(intentMessage);
        assertThat(created.get()).containsEntry("traceId", "trace-7");
    }

    @Test
    void with_no_concurrency_of_its_own_the_work_runs_on_the_handing_thread() {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        ProviderCalls.ON_CALLERS_THREAD.submit(INTENT, () -> ranOn.set(Thread.currentThread()));
        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
        assertThat(ProviderCalls.ON_CALLERS_THREAD.maxConcurrent()).isZero();
    }
}
