package io.durablecheckout.orchestrator.config;

import org.axonframework.eventhandling.DomainEventData;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventsourcing.eventstore.jdbc.EventSchema;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.serialization.Serializer;

import javax.annotation.Nonnull;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.Stream;

/**
 * Axon's JDBC event storage, without snapshots. The product takes none (a Checkout has about a dozen events), yet
 * every aggregate load asked the snapshot table first: four queries per checkout for rows that never exist. Storing a
 * snapshot is refused, so switching snapshots on cannot silently write rows nobody reads. docs/decisions.md §59.
 * Processors fetch with an open-ended query ({@link #readAfter}).
 */
final class EventsOnlyStorageEngine extends JdbcEventStorageEngine {

    EventsOnlyStorageEngine(JdbcEventStorageEngine.Builder builder) {
        super(builder);
    }

    /**
     * A processor's fetch of the events after its token: the first {@code batchSize} by global index, open-ended.
     * Axon's own query reads a window of {@code batchSize} indexes after the token and, when that window is empty,
     * asks for the lowest index beyond it ({@code SELECT min(globalIndex)}) in case the window lay in a gap; for a
     * caught-up processor every empty fetch was two statements, about 3 of the 15 event reads per checkout. Open-ended,
     * an empty answer means nothing is beyond, so that second question is never needed (the engine is built with the
     * extended gap check off). The same rows in the same order; a jump over a gap reaches the same index as Axon's
     * re-query from that minimum did, so the token and its gaps come out the same.
     */
    static PreparedStatement readAfter(Connection connection, EventSchema schema, long globalIndex, int batchSize)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement("SELECT " + schema.trackedEventFields() + " FROM "
                + schema.domainEventTable() + " WHERE " + schema.globalIndexColumn() + " > ? ORDER BY "
                + schema.globalIndexColumn() + " ASC LIMIT ?");
        statement.setLong(1, globalIndex);
        statement.setInt(2, batchSize);
        return statement;
    }

    /** {@link #readAfter}, plus the token's gaps (indexes below it whose transactions had not committed). */
    static PreparedStatement readAfterAndGaps(Connection connection, EventSchema schema, long globalIndex,
                                              int batchSize, List<Long> gaps) throws SQLException {
        String in = String.join(",", java.util.Collections.nCopies(gaps.size(), "?"));
        PreparedStatement statement = connection.prepareStatement("SELECT " + schema.trackedEventFields() + " FROM "
                + schema.domainEventTable() + " WHERE " + schema.globalIndexColumn() + " > ? OR "
                + schema.globalIndexColumn() + " IN (" + in + ") ORDER BY " + schema.globalIndexColumn()
                + " ASC LIMIT ?");
        statement.setLong(1, globalIndex);
        int i = 2;
        for (Long gap : gaps) {
            statement.setLong(i++, gap);
        }
        statement.setInt(i, batchSize + gaps.size());
        return statement;
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
