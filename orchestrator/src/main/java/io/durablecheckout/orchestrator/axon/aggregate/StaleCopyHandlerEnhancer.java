package io.durablecheckout.orchestrator.axon.aggregate;

import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.common.caching.Cache;
import org.axonframework.deadline.annotation.DeadlineHandler;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.annotation.HandlerEnhancerDefinition;
import org.axonframework.messaging.annotation.MessageHandlingMember;
import org.axonframework.messaging.annotation.WrappedMessageHandlingMember;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.modelling.command.AggregateLifecycle;
import org.axonframework.modelling.command.ConcurrencyException;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Around each command and deadline handler of one aggregate type: a decision taken on a copy from
 * {@link ConfirmedAggregateCache} that appends nothing, or refuses, is checked against the store's last sequence number, and if
 * another node has appended since the copy was cached, the decision is thrown away as a {@link ConcurrencyException}
 * (the command gateway and the deadline retry run it again, on the store's events). A decision that appends needs no
 * query: its first event takes the next sequence number, which the event table's unique key refuses if the store has
 * moved on. So a cached copy costs no statement on the hot path and is never trusted beyond what the store confirms.
 */
public final class StaleCopyHandlerEnhancer implements HandlerEnhancerDefinition {

    private final Class<?> aggregateType;
    private final Supplier<EventStore> events;
    private final Supplier<Cache> cache;

    public StaleCopyHandlerEnhancer(Class<?> aggregateType, Supplier<EventStore> events, Supplier<Cache> cache) {
        this.aggregateType = aggregateType;
        this.events = events;
        this.cache = cache;
    }

    @Override
    public <T> MessageHandlingMember<T> wrapHandler(MessageHandlingMember<T> original) {
        // by annotation: a deadline message is an event message, so an event sourcing handler "can handle" it too
        boolean decides = original.hasAnnotation(CommandHandler.class) || original.hasAnnotation(DeadlineHandler.class);
        if (!decides || !aggregateType.equals(original.declaringClass())) {
            return original;
        }
        return new WrappedMessageHandlingMember<>(original) {
            @Override
            public Object handle(Message<?> message, T target) throws Exception {
                String cached = CurrentUnitOfWork.isStarted()
                        ? CurrentUnitOfWork.get().getResource(ConfirmedAggregateCache.CACHED_COPY) : null;
                if (cached == null) {
                    return super.handle(message, target); // read from the store: nothing to confirm
                }
                Long copy = AggregateLifecycle.getVersion();
                Object result;
                try {
                    result = super.handle(message, target);
                } catch (Exception refused) {
                    confirm(cached, copy, refused);
                    throw refused;
                }
                if (Objects.equals(AggregateLifecycle.getVersion(), copy)) {
                    confirm(cached, copy, null); // nothing appended: no unique key will catch a stale copy
                }
                return result;
            }
        };
    }

    private void confirm(String aggregateId, Long copy, Exception refused) {
        Optional<Long> last = events.get().lastSequenceNumberFor(aggregateId);
        if (!Objects.equals(last.orElse(null), copy)) {
            cache.get().remove(aggregateId);
            throw new ConcurrencyException("checkout " + aggregateId + " is at sequence " + last.orElse(null)
                    + " in the store, its cached copy at " + copy + ": decided again on the store's events", refused);
        }
    }
}
