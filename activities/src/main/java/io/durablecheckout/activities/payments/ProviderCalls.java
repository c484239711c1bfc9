package io.durablecheckout.activities.payments;

import io.durablecheckout.activities.IntentHandling;
import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.messaging.unitofwork.BatchingUnitOfWork;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.messaging.unitofwork.UnitOfWork;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The payments worker's provider calls, with a concurrency of their own ({@code checkout.payments.max-concurrent-calls},
 * default 32): inside a processor's batch, the processor's thread hands each event's work (the fenced claim at the
 * resource, the provider call, the recorded status and the published result) to one of these threads and goes on to
 * the next event, waiting only while every call is taken. So a slow provider costs waiting, not one processor thread
 * per call and segment.
 * <p>
 * The batch does not commit (its processor token does not move) before every call it handed over has ended
 * (decision 123): a call in flight is an intent its processor has not passed, so lease rule 2 defers its lease
 * instead of expiring it, and it sends no claim or heartbeat (no event per payment; a call is bounded by the
 * provider's timeouts, shorter than the payment lease); a call lost with its node is redelivered with its batch, as
 * on the processor's thread. Each call runs in a unit of work and transaction of its own: resource row
 * and result commit together. A call that fails fails its batch, which the processor rolls back and retries; the
 * retry runs that event on the processor's thread, in the batch's transaction, where the dead-letter policy parks it
 * or retries it exactly as it did before calls had threads of their own.
 * <p>
 * Ordering: one checkout's work in a batch runs in the batch's order (a second waits for the first); once any work
 * of a batch ran on the processor's thread (it may hold row locks a call would wait for), the rest of that batch
 * runs there too. Outside a processor's batch (an operator retrying parked events, tests driving a worker, or
 * {@code max-concurrent-calls=0}) the work runs on the caller's thread, in the caller's transaction.
 */
public final class ProviderCalls implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ProviderCalls.class);

    /** On the caller's thread, in the caller's transaction (tests that drive a worker directly; {@code 0}). */
    public static final ProviderCalls ON_CALLERS_THREAD = new ProviderCalls(0, null, List::of);

    /** Failed calls whose redelivery runs on the processor's thread; bounded, oldest forgotten first. */
    private static final int REMEMBERED_FAILURES = 1024;

    private final String batchKey = ProviderCalls.class.getName() + "#" + System.identityHashCode(this);
    private final int maxConcurrent;
    private final Semaphore permits;
    private final ExecutorService threads;
    private final TransactionManager transactions;
    private final Supplier<List<CorrelationDataProvider>> correlation;
    private final Set<String> failed = Collections.synchronizedSet(Collections.newSetFromMap(
            new LinkedHashMap<>() {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                    return size() > REMEMBERED_FAILURES;
                }
            }));

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

    /** {@link #submit(CheckoutId, Runnable)} for an intent's work. */
    public void submit(io.durablecheckout.api.checkout.ActivityIntent intent, Runnable work) {
        submit(intent.checkoutId(), work);
    }

    /**
     * Runs {@code work} for an event of {@code checkout}: inside a processor's batch on a call thread once one is
     * free (this thread waits until then), the batch's commit waiting for it; otherwise here.
     */
    public void submit(CheckoutId checkout, Runnable work) {
        UnitOfWork<?> batch = batchOf();
        if (threads == null || batch == null) {
            work.run();
            return;
        }
        Message<?> message = CurrentUnitOfWork.get().getMessage();
        Batch calls = batch.root().getOrComputeResource(batchKey, k -> {
            Batch b = new Batch();
            batch.root().onPrepareCommit(u -> b.awaitAll());
            return b;
        });
        if (calls.onProcessorThread || (message != null && failed.remove(message.getIdentifier()))) {
            calls.onProcessorThread = true; // from here on: this batch's transaction may hold rows a call needs
            calls.awaitAll();
            work.run();
            return;
        }
        calls.awaitCheckout(checkout);
        IntentHandling.handOver(); // no hold while waiting or calling: the batch has not passed the intent
        try {
            permits.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a provider call slot", e);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            threads.execute(() -> {
                Throwable failure = null;
                try {
                    inUnitOfWork(message, work);
                } catch (RuntimeException | Error e) {
                    failure = e;
                    if (message != null) {
                        failed.add(message.getIdentifier()); // its redelivery is judged on the processor's thread
                    }
                    log.info("Provider call for {} failed; its batch is retried, the event on the processor's"
                            + " thread: {}", checkout, e.toString());
                } finally {
                    permits.release(); // free before the batch hears of the end
                }
                if (failure == null) {
                    done.complete(null);
                } else {
                    done.completeExceptionally(failure);
                }
            });
        } catch (RejectedExecutionException e) {
            permits.release();
            throw e;
        }
        calls.add(checkout, done);
    }

    /** The processor batch this thread works in, if any (an operator's retry of parked events runs in none). */
    private static UnitOfWork<?> batchOf() {
        if (!CurrentUnitOfWork.isStarted()) {
            return null;
        }
        UnitOfWork<?> root = CurrentUnitOfWork.get().root();
        return root instanceof BatchingUnitOfWork<?> ? root : null;
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

    /** One processor batch's calls: the batch commits after all of them ended, and fails if one failed. */
    private static final class Batch {
        private final List<CompletableFuture<Void>> all = new ArrayList<>();
        private final Map<CheckoutId, CompletableFuture<Void>> lastOf = new HashMap<>();
        private boolean onProcessorThread;

        void add(CheckoutId checkout, CompletableFuture<Void> done) {
            all.add(done);
            lastOf.put(checkout, done);
        }

        /** The checkout's earlier call in this batch, ended (whatever its outcome: the commit reports a failure). */
        void awaitCheckout(CheckoutId checkout) {
            CompletableFuture<Void> previous = lastOf.get(checkout);
            if (previous != null) {
                try {
                    previous.get();
                } catch (ExecutionException e) {
                    // reported by awaitAll at the commit
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for a provider call", e);
                }
            }
        }

        /** Waits for every call; the first failure is rethrown (the batch rolls back and is retried). */
        void awaitAll() {
            RuntimeException first = null;
            for (CompletableFuture<Void> call : all) {
                try {
                    call.get();
                } catch (ExecutionException e) {
                    if (first == null) {
                        first = new ProviderCallFailedException(e.getCause());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for provider calls", e);
                }
            }
            all.clear();
            lastOf.clear();
            if (first != null) {
                throw first;
            }
        }
    }

    /** A call of the batch failed: the batch is retried, the failed event on the processor's thread. */
    public static final class ProviderCallFailedException extends RuntimeException {
        ProviderCallFailedException(Throwable cause) {
            super("a provider call of this batch failed: " + cause, cause);
        }
    }

    /** Lets the calls in flight finish (bounded), then stops; a batch cut off is redelivered. */
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
