package io.durablecheckout.orchestrator.replay;

import io.durablecheckout.orchestrator.serialization.EventUpcasters;

import io.durablecheckout.orchestrator.checkout.Checkout;
import org.axonframework.eventhandling.DomainEventData;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.eventhandling.GenericDomainEventEntry;
import org.axonframework.eventsourcing.EventStreamUtils;
import org.axonframework.eventsourcing.eventstore.DomainEventStream;
import org.axonframework.serialization.SerializationException;
import org.axonframework.serialization.SerializedObject;
import org.axonframework.serialization.SerializedType;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.UnknownSerializedType;
import org.axonframework.serialization.json.JacksonSerializer;
import org.axonframework.serialization.upcasting.event.EventUpcaster;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;

import javax.sql.DataSource;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Reads checkout histories straight from Axon's JDBC event table, through the same serializer and upcasters as the
 * event store, without an Axon configuration (the command line replays with no processors or deadlines running).
 * Read only. Reads the hot event table and the retention archive together ({@link #EVENTS}, decisions.md §127).
 */
public final class StoredHistories {

    /** One checkout's stored events, with the raw rows kept for export. */
    public record History(String checkoutId, List<HistoryEvent> events, List<DomainEventData<byte[]>> rows) {
    }

    /** Checkouts per query of a bulk read: large enough that a query's round trip is shared, small enough to stream. */
    private static final int CHUNK = 256;

    /** The view of every Checkout event, hot or archived (V194_140): replay and bundles read both. */
    static final String EVENTS = "domain_events_all";

    private static final String COLUMNS = "aggregateidentifier, sequencenumber, eventidentifier, timestamp, "
            + "payloadtype, payloadrevision, payload, metadata";

    private final DataSource dataSource;
    private final Serializer serializer;
    private final EventUpcaster upcaster;
    private final Map<SerializedType, Optional<Class<?>>> current = new ConcurrentHashMap<>();
    private final Map<Class<?>, ObjectReader> readers = new ConcurrentHashMap<>();
    private final int chunk;

    public StoredHistories(DataSource dataSource, Serializer serializer, EventUpcaster upcaster) {
        this(dataSource, serializer, upcaster, CHUNK);
    }

    /** With {@code chunk} checkouts per query of a bulk read (tests use a small one to cross many chunks). */
    public StoredHistories(DataSource dataSource, Serializer serializer, EventUpcaster upcaster, int chunk) {
        if (chunk < 1) {
            throw new IllegalArgumentException("chunk must be at least 1, not " + chunk);
        }
        this.dataSource = dataSource;
        // nested type ids (an activity's result) are read only into the product's own results (ReplayTypes)
        this.serializer = serializer instanceof JacksonSerializer jackson
                ? JacksonSerializer.builder().objectMapper(ReplayTypes.guarded(jackson.getObjectMapper())).build()
                : serializer;
        this.upcaster = upcaster;
        this.chunk = chunk;
    }

    /** One checkout's history, or {@code null} if there is none. */
    public History load(String checkoutId) {
        List<History> found = new ArrayList<>();
        query("select " + COLUMNS + " from " + EVENTS + " where type = ? and aggregateidentifier = ? "
                + "order by sequencenumber", List.of(Checkout.TYPE, checkoutId), true, found::add);
        return found.isEmpty() ? null : found.get(0);
    }

    /** Every checkout created at or after {@code since} (all if null), one history at a time, streamed. */
    public void forEach(Instant since, Consumer<History> each) {
        visit(since, true, each);
    }

    /**
     * Every checkout's rows in (checkout, sequence) order, a chunk of checkouts at a time. One ordered query over the
     * whole table would sort every row with its payload before returning the first (an on-disk sort, and the
     * replaying threads idle until it ends); instead one cursor streams the ids of the checkouts (their first events,
     * small rows) and each chunk is read as one range of the (aggregate, sequence) index, in binary (a bytea in text
     * form is hex, twice the bytes to encode and to decode). A range is several times cheaper for the server than
     * the same ids as a list; a checkout in the range but not in the chunk (created later, or before {@code since})
     * is skipped. docs/decisions.md §58.
     */
    private void visit(Instant since, boolean deserialize, Consumer<History> each) {
        String firstEvents = "select aggregateidentifier, timestamp from " + EVENTS + " where type = ? and sequencenumber = 0"
                // the text comparison is coarse (ISO strings of varying precision): filtered exactly below
                + (since == null ? "" : " and timestamp >= ?") + " order by aggregateidentifier";
        String rows = "select " + COLUMNS + " from " + EVENTS + " where aggregateidentifier between ? and ? "
                + "and type = ? order by aggregateidentifier, sequencenumber";
        try (Connection idConnection = dataSource.getConnection(); Connection rowConnection = dataSource.getConnection()) {
            streaming(idConnection, () -> {
                try (PreparedStatement idQuery = idConnection.prepareStatement(firstEvents);
                     PreparedStatement rowQuery = binary(rowConnection.prepareStatement(rows))) {
                    idQuery.setFetchSize(Math.max(1_000, chunk));
                    idQuery.setString(1, Checkout.TYPE);
                    if (since != null) {
                        idQuery.setString(2, lowerBound(since));
                    }
                    rowQuery.setString(3, Checkout.TYPE);
                    try (ResultSet r = idQuery.executeQuery()) {
                        List<String> ids = new ArrayList<>(chunk);
                        while (r.next()) {
                            if (since == null || !Instant.parse(r.getString(2)).isBefore(since)) {
                                ids.add(r.getString(1));
                            }
                            if (ids.size() == chunk) {
                                readChunk(rowQuery, ids, deserialize, each);
                                ids.clear();
                            }
                        }
                        if (!ids.isEmpty()) {
                            readChunk(rowQuery, ids, deserialize, each);
                        }
                    }
                }
            });
        } catch (SQLException e) {
            throw new IllegalStateException("reading checkout histories failed: " + e.getMessage(), e);
        }
    }

    private void readChunk(PreparedStatement rowQuery, List<String> chunk, boolean deserialize,
                           Consumer<History> each) throws SQLException {
        rowQuery.setString(1, chunk.get(0));
        rowQuery.setString(2, chunk.get(chunk.size() - 1));
        Set<String> wanted = new HashSet<>(chunk);
        try (ResultSet r = rowQuery.executeQuery()) {
            emit(r, deserialize, h -> {
                if (wanted.contains(h.checkoutId())) {
                    each.accept(h);
                }
            });
        }
    }

    /** Asks the driver for binary results from the first execution (PostgreSQL's JDBC driver only; else unchanged). */
    private static PreparedStatement binary(PreparedStatement statement) throws SQLException {
        if (statement.isWrapperFor(org.postgresql.PGStatement.class)) {
            statement.unwrap(org.postgresql.PGStatement.class).setPrepareThreshold(-1);
        }
        return statement;
    }

    /**
     * Like {@link #forEach} but hands over raw rows only (events empty): the caller deserializes them with
     * {@link #history(String, List)}, on other threads.
     */
    public void forEachRaw(Instant since, Consumer<History> each) {
        visit(since, false, each);
    }

    /**
     * A text no greater than any stored timestamp at or after {@code since}: its second without the zone letter.
     * Stored timestamps are ISO-8601 text ({@code 2026-12-01T21:30:01.25Z}); the second with its "Z" would sort
     * after every timestamp with a fraction in that same second ('.' sorts before 'Z') and lose them.
     */
    private static String lowerBound(Instant since) {
        String second = since.truncatedTo(ChronoUnit.SECONDS).toString();
        return second.substring(0, second.length() - 1);
    }

    /** How many checkouts {@link #forEach} would visit (for a progress bar). */
    public long count(Instant since) {
        String sql = "select count(*) from " + EVENTS + " where type = ? and sequencenumber = 0"
                + (since == null ? "" : " and timestamp >= ?"); // coarse (text), as in forEach
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, Checkout.TYPE);
            if (since != null) {
                s.setString(2, lowerBound(since));
            }
            try (ResultSet r = s.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("counting checkouts failed: " + e.getMessage(), e);
        }
    }

    private void query(String sql, List<String> args, boolean deserialize, Consumer<History> each) {
        try (Connection c = dataSource.getConnection()) {
            streaming(c, () -> {
                try (PreparedStatement s = binary(c.prepareStatement(sql))) {
                    s.setFetchSize(2_000);
                    for (int i = 0; i < args.size(); i++) {
                        s.setString(i + 1, args.get(i));
                    }
                    try (ResultSet r = s.executeQuery()) {
                        emit(r, deserialize, each);
                    }
                }
            });
        } catch (SQLException e) {
            throw new IllegalStateException("reading checkout histories failed: " + e.getMessage(), e);
        }
    }

    private interface Reading {
        void run() throws SQLException;
    }

    /** Runs {@code reading} in a read-only transaction on {@code c}, rolled back after it: PostgreSQL streams with a
     * fetch size only inside a transaction. */
    private static void streaming(Connection c, Reading reading) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        c.setReadOnly(true);
        try {
            reading.run();
        } finally {
            c.rollback();
            c.setReadOnly(false);
            c.setAutoCommit(autoCommit);
        }
    }

    /** Groups rows ordered by (checkout, sequence) into one history per checkout. */
    private void emit(ResultSet r, boolean deserialize, Consumer<History> each) throws SQLException {
        String current = null;
        List<DomainEventData<byte[]>> rows = new ArrayList<>();
        while (r.next()) {
            String id = r.getString(1);
            if (current != null && !current.equals(id)) {
                each.accept(deserialize ? history(current, rows) : new History(current, List.of(), rows));
                rows = new ArrayList<>();
            }
            current = id;
            rows.add(new GenericDomainEventEntry<>(Checkout.TYPE, id, r.getLong(2), r.getString(3),
                    r.getString(4), r.getString(5), r.getString(6), r.getBytes(7), r.getBytes(8)));
        }
        if (current != null) {
            each.accept(deserialize ? history(current, rows) : new History(current, List.of(), rows));
        }
    }

    /**
     * Deserializes rows (of one checkout, in order) through the upcasters. A history whose events are all at today's
     * revision (no upcaster applies to them) is read directly with one reader per type, the same strict readers the
     * serializer would use, without the upcaster chain's intermediate representations (half of the cost of reading
     * a history); any other goes through the chain, as the event store reads it. The stored timestamps are not
     * parsed: replay does not read them (the rows keep them for export).
     */
    public History history(String checkoutId, List<? extends DomainEventData<byte[]>> rows) {
        return history(checkoutId, rows, false);
    }

    /**
     * Like {@link #history(String, List)} for a verdict only ({@link CheckoutReplayer#quick}): each recorded input's
     * payload is left unparsed in its metadata map (replay reads it from the stored bytes as its command anyway), the
     * half of the metadata only a report describes. A history that does not replay identically is read again in
     * full for its report. docs/decisions.md §58.
     */
    public History historyForVerdict(String checkoutId, List<? extends DomainEventData<byte[]>> rows) {
        return history(checkoutId, rows, true);
    }

    private History history(String checkoutId, List<? extends DomainEventData<byte[]>> rows, boolean lean) {
        for (DomainEventData<byte[]> row : rows) { // before any class is looked up, on either path below
            ReplayTypes.requireEvent(row.getPayload().getType().getName(), row.getSequenceNumber());
        }
        if (serializer instanceof JacksonSerializer jackson) {
            List<HistoryEvent> events = new ArrayList<>(rows.size());
            for (DomainEventData<byte[]> row : rows) {
                SerializedObject<byte[]> payload = row.getPayload();
                Class<?> type = currentType(payload.getType());
                Object event;
                if (type != null) {
                    event = read(jackson, type, payload.getData());
                } else if (upcaster == EventUpcasters.chain()) {
                    // an event at an older revision (every checkout created before CheckoutCreatedEvent revision 3):
                    // the product's upcasters change one payload each, so that row alone goes through them
                    event = EventUpcasters.deserialize(serializer, payload.getData(), payload.getType().getName(),
                            payload.getType().getRevision());
                } else {
                    return upcastHistory(checkoutId, rows);
                }
                EventMetaData metaData = metaData(jackson.getObjectMapper(), row.getMetaData().getData(), lean);
                events.add(new HistoryEvent(row.getSequenceNumber(), event, metaData.values(),
                        metaData.inputPayload()));
            }
            return new History(checkoutId, events, keep(rows));
        }
        return upcastHistory(checkoutId, rows);
    }

    /** The class of a stored type if it is at today's revision, or null (an upcaster reads it). */
    private Class<?> currentType(SerializedType stored) {
        return current.computeIfAbsent(stored, k -> { // a type's name and revision are its identity
            Class<?> type = serializer.classForType(stored);
            boolean current = !UnknownSerializedType.class.isAssignableFrom(type)
                    && Objects.equals(stored.getRevision(), serializer.typeForClass(type).getRevision());
            return current ? Optional.of(type) : Optional.empty();
        }).orElse(null);
    }

    @SuppressWarnings("unchecked")
    private <T> T read(JacksonSerializer jackson, Class<T> type, byte[] json) {
        ObjectReader reader = readers.computeIfAbsent(type, t -> jackson.getObjectMapper().readerFor(t));
        try {
            return (T) reader.readValue(json);
        } catch (IOException e) {
            throw new SerializationException("Error while deserializing object", e); // as the serializer says it
        }
    }

    private record EventMetaData(Map<String, Object> values, RecordedInputs.StoredPayload inputPayload) {
    }

    /**
     * An event's metadata read in one pass, every value untyped as Axon reads metadata, noting where the recorded
     * input's payload lies in the stored bytes: replay reads it from there straight as its command or deadline
     * payload instead of converting the map (docs/decisions.md §52).
     */
    private EventMetaData metaData(ObjectMapper mapper, byte[] json, boolean lean) {
        ObjectReader untyped = readers.computeIfAbsent(Object.class, mapper::readerFor);
        try (JsonParser p = mapper.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new SerializationException("event metadata is not a JSON object");
            }
            Map<String, Object> values = new LinkedHashMap<>();
            RecordedInputs.StoredPayload inputPayload = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                if (p.nextToken() != JsonToken.START_OBJECT || !RecordedInputs.INPUT.equals(name)) {
                    values.put(name, value(untyped, p));
                    continue;
                }
                Map<String, Object> input = new LinkedHashMap<>();
                long start = -1;
                long end = -1;
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    boolean payload = p.nextToken() == JsonToken.START_OBJECT && "payload".equals(field);
                    if (payload) {
                        start = p.currentTokenLocation().getByteOffset();
                    }
                    if (payload && lean) {
                        p.skipChildren();
                    } else {
                        input.put(field, value(untyped, p));
                    }
                    if (payload) {
                        end = p.currentLocation().getByteOffset();
                    }
                }
                values.put(name, input);
                inputPayload = start < 0 ? RecordedInputs.converted(input)
                        : RecordedInputs.stored(json, (int) start, (int) (end - start));
            }
            return new EventMetaData(values, inputPayload);
        } catch (IOException e) {
            throw new SerializationException("Error while deserializing object", e); // as the serializer says it
        }
    }

    /** Most metadata values are strings: taken as the untyped reader would take them, without its set-up per value. */
    private static Object value(ObjectReader untyped, JsonParser p) throws IOException {
        return p.currentToken() == JsonToken.VALUE_STRING ? p.getText() : untyped.readValue(p);
    }

    @SuppressWarnings("unchecked")
    private static List<DomainEventData<byte[]>> keep(List<? extends DomainEventData<byte[]>> rows) {
        return (List<DomainEventData<byte[]>>) List.copyOf(rows);
    }

    private History upcastHistory(String checkoutId, List<? extends DomainEventData<byte[]>> rows) {
        DomainEventStream stream = EventStreamUtils.upcastAndDeserializeDomainEvents(rows.stream(), serializer,
                upcaster);
        List<HistoryEvent> events = new ArrayList<>();
        while (stream.hasNext()) {
            DomainEventMessage<?> m = stream.next();
            Map<String, Object> metaData = new LinkedHashMap<>(m.getMetaData());
            @SuppressWarnings("unchecked")
            RecordedInputs.StoredPayload inputPayload = metaData.get(RecordedInputs.INPUT) instanceof Map<?, ?> input
                    ? RecordedInputs.converted((Map<String, Object>) input) : null;
            events.add(new HistoryEvent(m.getSequenceNumber(), m.getPayload(), metaData, inputPayload));
        }
        return new History(checkoutId, events, keep(rows));
    }
}
