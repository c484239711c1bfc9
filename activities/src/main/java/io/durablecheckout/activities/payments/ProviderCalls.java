package io.durablecheckout.activities.payments;

import io.durablecheckout.activities.IntentHandling;
import io.durablecheckout.activities.LeaseKeeper;
import io.durablecheckout.api.checkout.ActivityIntent;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The payments worker's provider calls, with a concurrency of their own ({@code checkout.payments.max-concurrent-calls},
 * default 32): the processor's thread hands each intent's work (the fenced claim at the resource, the provider call,
 * the recorded status and the published result) to one of these threads and goes on to the next intent, waiting only
 * while every call is taken. So a slow provider costs waiting, not one processor thread per call and segment.
 * <p>
 * Each call runs in a unit of work and transaction of its own (not the processor's, which commits once the work is
 * handed over): resource row and result commit together, as in the processor's. The intent's lease is claimed when
 * the call starts ({@link IntentHandling#handOver}), then held by heartbeats while it lasts. A call lost with its
 * node (or failing) leaves its intent passed and claimed but unfinished: its lease runs out and the intent is issued again under the
 * same operation id, which the provider deduplicates. With {@code max-concurrent-calls=0} the work runs on the
 * processor's thread, in its transaction, as before.
 */
public final class ProviderCalls implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ProviderCalls.class);

    /** On the caller's thread, in the caller's transaction (tests that drive a worker directly; {@code 0}). */
    public static final ProviderCalls ON_CALLERS_THREAD = new ProviderCalls(0, null, List::of);

    private final int maxConcurrent;
    private final Semaphore permits;
    private final ExecutorService threads;
    private final TransactionManager transactions;
    private final Supplier<List<CorrelationDataProvider>> correlation;

    public ProviderCalls(int maxConcurrent, TransactionManager transactions,
                         Supplier<List<CorrelationDataProvider>> correlation) {
        this.maxConcurrent = Math.max(0, maxConcurrent);
        this.transactions = transactions;
        this.correlation = correlation;
        this.permits = new Semaphore(this.maxConcurrent);
        AtomicInteger n = new AtomicInteger();
        this.threads = this.maxConcurrent == 0 ? null : Executors.newFixedThreadPool(this.maxConcurrent, r -> {
            Thread t = new Thread(r, "provider-call-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    public int maxConcurrent() {
        return maxConcurrent;
    }

    /** Calls in flight now. */
    public int inFlight() {
        return maxConcurrent - permits.availablePermits();
    }

    /**
     * Runs {@code work} for {@code intent}: on a call thread once one is free (this thread waits until then), or here
     * when the concurrency is 0.
     */
    public void submit(ActivityIntent intent, Runnable work) {
        if (threads == null) {
            work.run();
            return;
        }
        Message<?> message = CurrentUnitOfWork.isStarted() ? CurrentUnitOfWork.get().getMessage() : null;
        IntentHandling.Handover handover = IntentHandling.handOver();
        try {
            permits.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a provider call slot", e);
        }
        LeaseKeeper.Hold hold = handover.claim(); // claimed as the call starts, committed with the processor's batch
        try {
            threads.execute(() -> {
                try (hold) {
                    inUnitOfWork(message, work);
                } catch (RuntimeException | Error e) {
                    // nothing published: the intent's lease runs out and it is issued again (same operation id)
                    log.warn("Provider call for {} failed; its lease will re-issue it: {}",
                            intent.lease().operationId(), e.toString());
                } finally {
                    permits.release();
                }
            });
        } catch (RejectedExecutionException e) {
            permits.release();
            hold.close();
            throw e;
        }
    }

    private void inUnitOfWork(Message<?> message, Runnable work) {
        DefaultUnitOfWork<?> unitOfWork = DefaultUnitOfWork.startAndGet(message);
        if (transactions != null) {
            unitOfWork.attachTransaction(transactions);
        }
        for (CorrelationDataProvider provider : correlation.get()) {
            unitOfWork.registerCorrelationDataProvider(provider);
        }
        unitOfWork.execute(work); // commits, or rolls back and rethrows
    }

    /** Lets the calls in flight finish (bounded), then stops; a call cut off is covered by its lease. */
    @Override
    public void close() {
        if (threads == null || threads.isTerminated()) {
            return;
        }
        threads.shutdown();
        try {
            if (!threads.awaitTermination(Duration.ofSeconds(10).toMillis(), TimeUnit.MILLISECONDS)) {
                threads.shutdownNow();
            }
        } catch (InterruptedException e) {
            threads.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
