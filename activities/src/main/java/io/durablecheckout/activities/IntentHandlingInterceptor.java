package io.durablecheckout.activities;

import io.durablecheckout.api.checkout.ActivityIntent;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.messaging.InterceptorChain;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.axonframework.messaging.unitofwork.UnitOfWork;

import java.util.function.Supplier;

/**
 * What happens around every intent a worker handles, registered on the worker processors (and so also around a
 * parked intent's retry): the worker holds the intent's lease while its handler runs ({@link LeaseKeeper}, the lease
 * runs while an owner holds it), and inside that hold the {@link WorkerPauseHook} sees the intent before the handler
 * touches its resource. The handlers hold only their step's logic; fault injection plugs in here, from outside.
 */
public final class IntentHandlingInterceptor implements MessageHandlerInterceptor<EventMessage<?>> {

    private final Supplier<LeaseKeeper> leases;
    private final Supplier<WorkerPauseHook> pauseHook;

    /** Suppliers, read at the first intent: the beans need not exist yet when Axon builds its processors. */
    public IntentHandlingInterceptor(Supplier<LeaseKeeper> leases, Supplier<WorkerPauseHook> pauseHook) {
        this.leases = memoized(leases);
        this.pauseHook = memoized(pauseHook);
    }

    @Override
    public Object handle(UnitOfWork<? extends EventMessage<?>> unitOfWork, InterceptorChain chain) throws Exception {
        if (!(unitOfWork.getMessage().getPayload() instanceof ActivityIntent intent)) {
            return chain.proceed(); // a decision the worker records (PaymentAuthorizedEvent, ...): no lease involved
        }
        try (LeaseKeeper.Hold hold = leases.get().hold(intent)) {
            pauseHook.get().afterIntentRead(intent);
            return chain.proceed();
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
