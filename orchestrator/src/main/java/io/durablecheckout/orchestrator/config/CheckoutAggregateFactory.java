package io.durablecheckout.orchestrator.config;

import io.durablecheckout.orchestrator.checkout.Checkout;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventsourcing.AggregateFactory;

import javax.annotation.Nonnull;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;

/**
 * Creates the empty Checkout that Axon then sources from its events, with its no-argument constructor. It replaces
 * Axon's Spring prototype factory, which made a prototype bean (bean creation with every post-processor) on each
 * load; the Checkout takes nothing from the context (its resources are handler parameters). No snapshots are taken,
 * so the first event is always the creation. docs/decisions.md §59.
 */
public final class CheckoutAggregateFactory implements AggregateFactory<Checkout> {

    private final Constructor<Checkout> constructor;

    public CheckoutAggregateFactory() {
        try {
            constructor = Checkout.class.getDeclaredConstructor();
            constructor.setAccessible(true); // protected: only Axon creates an empty Checkout
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("the Checkout needs a no-argument constructor for event sourcing", e);
        }
    }

    @Override
    public Checkout createAggregateRoot(@Nonnull String aggregateIdentifier, DomainEventMessage<?> firstEvent) {
        if (firstEvent != null && Checkout.class.isAssignableFrom(firstEvent.getPayloadType())) {
            throw new IllegalStateException("checkout " + aggregateIdentifier + " starts with a snapshot; none are taken");
        }
        try {
            return constructor.newInstance();
        } catch (InstantiationException | IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("could not create an empty Checkout", e);
        }
    }

    @Override
    public Class<Checkout> getAggregateType() {
        return Checkout.class;
    }
}
