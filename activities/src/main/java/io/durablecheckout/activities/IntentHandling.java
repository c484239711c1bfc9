package io.durablecheckout.activities;

import io.durablecheckout.api.checkout.ActivityIntent;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.annotation.HandlerEnhancerDefinition;
import org.axonframework.messaging.annotation.MessageHandlingMember;
import org.axonframework.messaging.annotation.WrappedMessageHandlingMember;

import java.util.function.Supplier;

/**
 * What happens around every intent a worker handles, wrapped around the workers' {@code @EventHandler} methods (an
 * Axon handler enhancer: it runs exactly where the handler body runs, inside the processor's transaction and after
 * the dead-letter queue's check, and also when a parked intent is retried): the worker holds the intent's lease while
 * its handler runs ({@link LeaseKeeper}, the lease runs while an owner holds it), and inside that hold the
 * {@link WorkerPauseHook} sees the intent before the handler touches its resource. The handlers hold only their
 * step's logic; fault injection plugs in here, from outside.
 */
public final class IntentHandling implements HandlerEnhancerDefinition {

    private static final String WORKERS = IntentHandling.class.getPackageName();

    private final Supplier<LeaseKeeper> leases;
    private final Supplier<WorkerPauseHook> pauseHook;

    /** Suppliers, read at the first intent: the beans need not exist yet when Axon inspects the handlers. */
    public IntentHandling(Supplier<LeaseKeeper> leases, Supplier<WorkerPauseHook> pauseHook) {
        this.leases = memoized(leases);
        this.pauseHook = memoized(pauseHook);
    }

    @Override
    public <T> MessageHandlingMember<T> wrapHandler(MessageHandlingMember<T> original) {
        // the workers' intent handlers only: the read model and the saga see intents too, and hold no lease
        if (!ActivityIntent.class.isAssignableFrom(original.payloadType())
                || !original.declaringClass().getPackageName().startsWith(WORKERS)) {
            return original;
        }
        return new WrappedMessageHandlingMember<>(original) {
            @Override
            public Object handle(Message<?> message, T target) throws Exception {
                if (!(message.getPayload() instanceof ActivityIntent intent)) {
                    return super.handle(message, target);
                }
                Held held = new Held(leases.get(), intent);
                Held outer = CURRENT.get();
                CURRENT.set(held);
                try {
                    pauseHook.get().afterIntentRead(intent);
                    return super.handle(message, target);
                } finally {
                    CURRENT.set(outer);
                    held.hold.close();
                }
            }
        };
    }

    /**
     * Hands the lease hold of the intent this thread is handling over to another thread (payments' bounded provider
     * calls), which closes it when the work ends: this thread's delayed hold ends, and the lease is claimed now, in this
     * thread's unit of work (the processor passes the intent before the work ends: the claim, committed with that,
     * is what says an owner is on it, and lets a crash mid-work expire it a lease later), then renewed meanwhile.
     * Outside a wrapped handler: a hand-over of nothing.
     */
    public static Handover handOver() {
        Held held = CURRENT.get();
        if (held == null) {
            return () -> () -> {
            };
        }
        held.hold.close(); // before any wait for the other thread: its delayed claim must not go out as well
        return () -> held.keeper.claim(held.intent);
    }

    /** The hand-over's claim, made when the work is about to start; the hold it returns is closed when it ends. */
    @FunctionalInterface
    public interface Handover {
        LeaseKeeper.Hold claim();
    }

    private static final ThreadLocal<Held> CURRENT = new ThreadLocal<>();

    private static final class Held {
        final LeaseKeeper keeper;
        final ActivityIntent intent;
        final LeaseKeeper.Hold hold;

        Held(LeaseKeeper keeper, ActivityIntent intent) {
            this.keeper = keeper;
            this.intent = intent;
            this.hold = keeper.hold(intent);
        }
    }

    private static <T> Supplier<T> memoized(Supplier<T> supplier) {
        return new Supplier<>() {
            private volatile T value;

            @Override
            public T get() {
                T v = value;
                if (v == null) {
                    v = supplier.get();
                    value = v;
                }
                return v;
            }
        };
    }
}
