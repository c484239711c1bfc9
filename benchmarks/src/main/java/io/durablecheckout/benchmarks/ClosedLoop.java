package io.durablecheckout.benchmarks;

import java.time.Duration;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Keeps C checkouts in flight: C client threads, each submitting a checkout and waiting until it is completed before
 * submitting the next (a closed loop, so the system is never offered more than C at once and queueing inside the
 * harness cannot inflate latencies). Latency = nanoTime the completion was seen − nanoTime just before submitting.
 */
final class ClosedLoop {

    /** A checkout not done after this long counts as a timeout and frees its slot. */
    static final Duration COMPLETION_TIMEOUT = Duration.ofSeconds(60);

    record Result(int requested, long[] latenciesNanos, int errors, int timeouts, String firstError,
                  long startNanos, long endNanos) {

        int completed() {
            return latenciesNanos.length;
        }

        double seconds() {
            return (endNanos - startNanos) / 1e9;
        }

        double perSecond() {
            return completed() / seconds();
        }

        /** Nearest-rank percentile, in milliseconds. */
        double percentileMillis(double p) {
            if (latenciesNanos.length == 0) {
                return Double.NaN;
            }
            int rank = (int) Math.ceil(p / 100.0 * latenciesNanos.length);
            return latenciesNanos[Math.max(0, Math.min(latenciesNanos.length - 1, rank - 1))] / 1e6;
        }
    }

    /** CPU time and allocated bytes of every client thread, added when it ends (work units: WorkUnits). */
    static final java.util.concurrent.atomic.LongAdder CLIENT_CPU_NANOS = new java.util.concurrent.atomic.LongAdder();
    static final java.util.concurrent.atomic.LongAdder CLIENT_ALLOCATED_BYTES = new java.util.concurrent.atomic.LongAdder();

    private static void accountClientThread() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        CLIENT_CPU_NANOS.add(Math.max(0, threads.getCurrentThreadCpuTime()));
        if (threads instanceof com.sun.management.ThreadMXBean sun && sun.isThreadAllocatedMemorySupported()) {
            CLIENT_ALLOCATED_BYTES.add(Math.max(0, sun.getCurrentThreadAllocatedBytes()));
        }
    }

    static Result run(Workload workload, int count, int concurrency, Submitter submitter, CompletionWatcher watcher)
            throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        long[] latencies = new long[count];
        Arrays.fill(latencies, -1);
        AtomicInteger errors = new AtomicInteger();
        AtomicInteger timeouts = new AtomicInteger();
        AtomicReference<String> firstError = new AtomicReference<>();
        AtomicLong lastCompletion = new AtomicLong(Long.MIN_VALUE);
        List<Thread> clients = new ArrayList<>();
        long start = System.nanoTime();
        for (int c = 0; c < Math.min(concurrency, count); c++) {
            Thread client = new Thread(() -> {
                try {
                    runClient(workload, count, submitter, watcher, next, latencies, errors, timeouts, firstError,
                            lastCompletion);
                } finally {
                    accountClientThread();
                }
            }, "bench-client-" + c);
            clients.add(client);
            client.start();
        }
        for (Thread client : clients) {
            client.join();
        }
        long end = lastCompletion.get() == Long.MIN_VALUE ? System.nanoTime() : lastCompletion.get();
        long[] done = Arrays.stream(latencies).filter(l -> l >= 0).sorted().toArray();
        return new Result(count, done, errors.get(), timeouts.get(), firstError.get(), start, end);
    }

    private static void runClient(Workload workload, int count, Submitter submitter, CompletionWatcher watcher,
                                  AtomicInteger next, long[] latencies, AtomicInteger errors, AtomicInteger timeouts,
                                  AtomicReference<String> firstError, AtomicLong lastCompletion) {
        int i;
        while ((i = next.getAndIncrement()) < count) {
            Workload.Checkout checkout = workload.checkout(i);
            CompletableFuture<Long> done = watcher.completionOf(checkout.checkoutId());
            long submitted = System.nanoTime();
            try {
                submitter.submit(checkout);
            } catch (Exception e) {
                errors.incrementAndGet();
                firstError.compareAndSet(null, e.toString());
                continue;
            }
            try {
                long seen = done.get(COMPLETION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                latencies[i] = seen - submitted;
                lastCompletion.accumulateAndGet(seen, Math::max);
            } catch (TimeoutException e) {
                timeouts.incrementAndGet();
                firstError.compareAndSet(null, "not completed within " + COMPLETION_TIMEOUT + ": "
                        + checkout.checkoutId());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                errors.incrementAndGet();
                firstError.compareAndSet(null, e.toString());
            }
        }
    }

    /** What {@link #submitAll} got back: accepted and refused submissions, and the first failure. */
    record Submitted(int accepted, int failed, String firstError) {
    }

    /**
     * Submits {@code count} checkouts from {@code clients} threads without waiting for any to complete: they stay in
     * flight (a backlog for the recovery and deadline-lag runs, a calibration load for the burst).
     */
    static Submitted submitAll(Workload workload, int count, int clients, Submitter submitter)
            throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<String> firstError = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < Math.min(clients, count); c++) {
            Thread t = new Thread(() -> {
                int i;
                while ((i = next.getAndIncrement()) < count) {
                    try {
                        submitter.submit(workload.checkout(i));
                        accepted.incrementAndGet();
                    } catch (Exception e) {
                        failed.incrementAndGet();
                        firstError.compareAndSet(null, e.toString());
                    }
                }
            }, "bench-submitter-" + c);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        return new Submitted(accepted.get(), failed.get(), firstError.get());
    }
}
