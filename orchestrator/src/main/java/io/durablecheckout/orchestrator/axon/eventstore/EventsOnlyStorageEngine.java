package io.durablecheckout.orchestrator.axon.eventstore;

import org.axonframework.common.transaction.Transaction;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.eventhandling.DomainEventData;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.TrackedEventData;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.jdbc.EventSchema;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.serialization.Serializer;

import javax.annotation.Nonnull;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Axon's JDBC event storage, without snapshots. The product takes none (a Checkout has about a dozen events), yet
 * every aggregate load asked the snapshot table first: four queries per checkout for rows that never exist. Storing a
 * snapshot is refused, so switching snapshots on cannot silently write rows nobody reads. docs/decisions.md §59.
 * Processors fetch with an open-ended query ({@link #readAfter}), without a transaction of their own, and paced
 * while events keep coming ({@link #fetchTrackedEvents}). An aggregate's events are read from the hot table and its
 * archive together ({@link #readEventData(Connection, String, long, int)}, decisions.md §127).
 */
public final class EventsOnlyStorageEngine extends JdbcEventStorageEngine {

    /** Per fetching thread (the store's producer, a catching-up stream): when its next fetch may run. */
    private static final ThreadLocal<long[]> NEXT_FETCH = ThreadLocal.withInitial(() -> new long[1]);

    private final long fetchIntervalNanos;

    /**
     * @param builder       built with {@link #readsWithoutTransaction} around the transaction manager
     * @param fetchInterval the least time between two fetches of one thread while each finds events (0: none)
     */
    public EventsOnlyStorageEngine(JdbcEventStorageEngine.Builder builder, Duration fetchInterval) {
        super(builder);
        this.fetchIntervalNanos = fetchInterval.toNanos();
    }

    /**
     * The transaction manager the engine gets: reads run on the caller's connection as they are (one statement
     * each, so a transaction adds only its BEGIN; inside a unit of work they use its connection and transaction
     * anyway); appends and everything else go through {@code delegate}. A caught-up processor's fetches were a
     * BEGIN and a SELECT each, about four statements per checkout (decisions.md §79).
     */
    public static TransactionManager readsWithoutTransaction(TransactionManager delegate) {
        return new TransactionManager() {
            @Override
            public Transaction startTransaction() {
                return delegate.startTransaction();
            }

            @Override
            public <T> T fetchInTransaction(Supplier<T> supplier) {
                return supplier.get();
            }
        };
    }

    /**
     * The store's shared producer fetches again at once after every fetch that found events, and is woken by every
     * local commit: under load, one fetch per commit, each carrying a few events, and a transaction per processor
     * batch of as few. After a fetch that found events but did not fill a batch, the next one of the same thread
     * waits until {@code fetchInterval} has passed since, so the events of several commits arrive together (the
     * idea of Kafka's {@code linger.ms}). An empty fetch sets no pace: the first events after a quiet spell are
     * fetched at once; a full one neither: catching up runs at full speed.
     */
    @Override
    protected List<? extends TrackedEventData<?>> fetchTrackedEvents(TrackingToken lastToken, int batchSize) {
        long[] next = NEXT_FETCH.get();
        for (long wait = next[0] - System.nanoTime(); wait > 0 && !Thread.currentThread().isInterrupted();
             wait = next[0] - System.nanoTime()) {
            LockSupport.parkNanos(wait);
        }
        List<? extends TrackedEventData<?>> events = super.fetchTrackedEvents(lastToken, batchSize);
        boolean paced = fetchIntervalNanos > 0 && !events.isEmpty() && events.size() < batchSize;
        next[0] = paced ? System.nanoTime() + fetchIntervalNanos : 0;
        return events;
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
    public static PreparedStatement readAfter(Connection connection, EventSchema schema, long globalIndex, int batchSize)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement("SELECT " + schema.trackedEventFields() + " FROM "
                + schema.domainEventTable() + " WHERE " + schema.globalIndexColumn() + " > ? ORDER BY "
                + schema.globalIndexColumn() + " ASC LIMIT ?");
        statement.setLong(1, globalIndex);
        statement.setInt(2, batchSize);
        return statement;
    }

    /**
     * {@link #readAfter}, plus the token's gaps (indexes below it whose transactions had not committed), as two index
     * range reads joined: {@code globalIndex > ? OR globalIndex IN (…)} cannot use the index's order, and once the
     * driver prepares it on the server its generic plan walked the whole primary key and filtered every row, a read
     * that grew with the store (15–30 ms at 40,000 events, a sixth of a checkout's statement time; decisions.md §80).
     * The gaps go as one array, so every gap count is one statement. Gaps lie below the token, the rest above it: no
     * row is read twice.
     */
    public static PreparedStatement readAfterAndGaps(Connection connection, EventSchema schema, long globalIndex,
                                              int batchSize, List<Long> gaps) throws SQLException {
        String fields = schema.trackedEventFields();
        String table = schema.domainEventTable();
        String index = schema.globalIndexColumn();
        PreparedStatement statement = connection.prepareStatement(
                "SELECT * FROM ((SELECT " + fields + " FROM " + table + " WHERE " + index + " > ? ORDER BY " + index
                        + " ASC LIMIT ?) UNION ALL (SELECT " + fields + " FROM " + table + " WHERE " + index
                        + " = ANY (?))) e ORDER BY " + index + " ASC LIMIT ?");
        statement.setLong(1, globalIndex);
        statement.setInt(2, batchSize + gaps.size());
        statement.setArray(3, connection.createArrayOf("bigint", gaps.toArray()));
        statement.setInt(4, batchSize + gaps.size());
        return statement;
    }

    /** Where retention moves finished checkouts' events (V194_140); processors never read it. */
    public static final String ARCHIVE_TABLE = "domainevententry_archive";

    /**
     * An aggregate's events, hot and archived, in one statement: a move (one transaction) is seen entirely or not at
     * all, so every event is read exactly once. Each branch is a range of its table's (aggregate, sequence) key;
     * for an aggregate never archived the second finds nothing in an index probe. decisions.md §127.
     */
    @Override
    protected PreparedStatement readEventData(Connection connection, String identifier, long firstSequenceNumber,
                                              int batchSize) throws SQLException {
        EventSchema schema = schema();
        String where = " WHERE " + schema.aggregateIdentifierColumn() + " = ? AND " + schema.sequenceNumberColumn()
                + " >= ? AND " + schema.sequenceNumberColumn() + " < ?";
        PreparedStatement statement = connection.prepareStatement("SELECT " + domainEventFields() + " FROM "
                + schema.domainEventTable() + where + " UNION ALL SELECT " + domainEventFields() + " FROM "
                + ARCHIVE_TABLE + where + " ORDER BY " + schema.sequenceNumberColumn() + " ASC");
        for (int offset : new int[] {0, 3}) {
            statement.setString(offset + 1, identifier);
            statement.setLong(offset + 2, firstSequenceNumber);
            statement.setLong(offset + 3, firstSequenceNumber + batchSize);
        }
        return statement;
    }

    /** The aggregate's last sequence number, hot or archived (a cached copy of an archived checkout is confirmed). */
    @Override
    protected PreparedStatement lastSequenceNumberFor(Connection connection, String identifier) throws SQLException {
        EventSchema schema = schema();
        String max = "SELECT max(" + schema.sequenceNumberColumn() + ") AS s FROM %s WHERE "
                + schema.aggregateIdentifierColumn() + " = ?";
        PreparedStatement statement = connection.prepareStatement("SELECT max(s) FROM (" + max.formatted(
                schema.domainEventTable()) + " UNION ALL " + max.formatted(ARCHIVE_TABLE) + ") last");
        statement.setString(1, identifier);
        statement.setString(2, identifier);
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
