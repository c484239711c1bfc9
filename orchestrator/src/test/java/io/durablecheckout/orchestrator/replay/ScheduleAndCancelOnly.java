package io.durablecheckout.orchestrator.replay;

import org.axonframework.common.Registration;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.deadline.DeadlineMessage;
import org.axonframework.messaging.MessageDispatchInterceptor;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.axonframework.messaging.ScopeDescriptor;

import javax.annotation.Nonnull;

/**
 * A deadline manager for a Checkout run outside the application (the corpus recorder): the Checkout only
 * schedules and cancels by id, so the rest of the interface refuses or does nothing.
 */
abstract class ScheduleAndCancelOnly implements DeadlineManager {

    @Override
    public void cancelAll(@Nonnull String deadlineName) {
        throw new UnsupportedOperationException("the Checkout does not cancel all deadlines of a name");
    }

    @Override
    public void cancelAllWithinScope(@Nonnull String deadlineName, @Nonnull ScopeDescriptor scope) {
        throw new UnsupportedOperationException("the Checkout does not cancel all deadlines within a scope");
    }

    @Nonnull
    @Override
    public Registration registerDispatchInterceptor(
            @Nonnull MessageDispatchInterceptor<? super DeadlineMessage<?>> interceptor) {
        return () -> true;
    }

    @Nonnull
    @Override
    public Registration registerHandlerInterceptor(
            @Nonnull MessageHandlerInterceptor<? super DeadlineMessage<?>> interceptor) {
        return () -> true;
    }
}
