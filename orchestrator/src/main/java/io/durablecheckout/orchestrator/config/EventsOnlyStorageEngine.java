package io.durablecheckout.orchestrator.config;

import org.axonframework.eventhandling.DomainEventData;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.serialization.Serializer;

import javax.annotation.Nonnull;
import java.util.stream.Stream;

/**
 * Axon's JDBC event storage, without snapshots. The product takes none (a Checkout has about a dozen events), yet
 * every aggregate load asked the snapshot table first: four queries per checkout for rows that never exist. Storing a
 * snapshot is refused, so switching snapshots on cannot silently write rows nobody reads. docs/decisions.md §59.
 */
final class EventsOnlyStorageEngine extends JdbcEventStorageEngine {

    EventsOnlyStorageEngine(JdbcEventStorageEngine.Builder builder) {
        super(builder);
    }

    @Override
    protected Stream<? extends DomainEventData<?>> readSnapshotData(String aggregateIdentifier) {
        return Stream.empty();
    }

    @Override
    protected void storeSnapshot(@Nonnull DomainEventMessage<?> snapshot, @Nonnull Serializer serializer) {
        throw new UnsupportedOperationException("this event store takes no snapshots (docs/decisions.md §59)");
    }
}
