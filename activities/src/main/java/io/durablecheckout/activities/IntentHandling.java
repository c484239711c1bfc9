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
     * Ends the lease hold of the intent this thread is handling, because its work is handed to another thread
     * (payments' bounded provider calls) whose end this thread's processor batch waits for before it commits: the
     * intent stays unpassed by its processor while it waits for a free call and while the call runs, so lease rule 2
     * defers its deadline instead of expiring it, and a call, bounded by the provider's timeouts (shorter than the
     * payment lease), never needs a claim or a renewal (decision 123). Outside a wrapped handler: nothing to end.
     */
    public static void handOver() {
        Held held = CURRENT.get();
        if (held != null) {
            held.hold.close(); // before any wait for a free call: its delayed claim must not go out meanwhile
        }
    }

    private static final ThreadLocal<Held> CURRENT = new ThreadLocal<>();

    private static final class Held {
        final LeaseKeeper.Hold hold;

        Held(LeaseKeeper keeper, ActivityIntent intent) {
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
