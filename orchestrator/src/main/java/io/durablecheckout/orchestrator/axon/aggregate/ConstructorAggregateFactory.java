package io.durablecheckout.orchestrator.axon.aggregate;

import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventsourcing.AggregateFactory;

import javax.annotation.Nonnull;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;

/**
 * Creates the empty aggregate that Axon then sources from its events, with its no-argument constructor. It replaces
 * Axon's Spring prototype factory, which made a prototype bean (bean creation with every post-processor) on each
 * load; the aggregate takes nothing from the context (its resources are handler parameters). No snapshots are taken,
 * so the first event is always the creation. docs/decisions.md §59.
 */
public final class ConstructorAggregateFactory<T> implements AggregateFactory<T> {

    private final Class<T> type;
    private final Constructor<T> constructor;

    public ConstructorAggregateFactory(Class<T> type) {
        this.type = type;
        try {
            constructor = type.getDeclaredConstructor();
            constructor.setAccessible(true); // protected: only Axon creates an empty aggregate
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(type.getSimpleName() + " needs a no-argument constructor for event sourcing", e);
        }
    }

    @Override
    public T createAggregateRoot(@Nonnull String aggregateIdentifier, DomainEventMessage<?> firstEvent) {
        if (firstEvent != null && type.isAssignableFrom(firstEvent.getPayloadType())) {
            throw new IllegalStateException(type.getSimpleName() + " " + aggregateIdentifier + " starts with a snapshot; none are taken");
        }
        try {
            return constructor.newInstance();
        } catch (InstantiationException | IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("could not create an empty " + type.getSimpleName(), e);
        }
    }

    @Override
    public Class<T> getAggregateType() {
        return type;
    }
}
