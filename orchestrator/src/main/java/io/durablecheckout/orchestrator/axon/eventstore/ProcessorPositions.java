package io.durablecheckout.orchestrator.axon.eventstore;

import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventhandling.WrappedToken;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;
import org.springframework.jdbc.core.JdbcTemplate;

import java.util.ArrayList;
import java.util.List;

/**
 * Whether a processor has passed an aggregate's event, read from the event and token tables: the event's global index
 * against the position of every segment of the processor (the positions the dashboard's processors page shows).
 * Conservative: passed only when every segment is past the event (a segment that does not own it has passed it too
 * once it is further) and has not left it in its gaps; never for a segment without a token or a processor without
 * segments.
 */
public final class ProcessorPositions {

    private final JdbcTemplate jdbc;
    private final Serializer serializer;

    public ProcessorPositions(JdbcTemplate jdbc, Serializer serializer) {
        this.jdbc = jdbc;
        this.serializer = serializer;
    }

    /** Whether every segment of {@code processor} is past the event {@code sequenceNumber} of {@code aggregateId}. */
    public boolean passed(String processor, String aggregateId, long sequenceNumber) {
        List<Long> event = jdbc.queryForList("SELECT globalindex FROM domainevententry "
                + "WHERE aggregateidentifier = ? AND sequencenumber = ?", Long.class, aggregateId, sequenceNumber);
        if (event.isEmpty()) {
            return false;
        }
        long index = event.get(0);
        List<TrackingToken> segments = new ArrayList<>();
        boolean[] unreadable = {false};
        jdbc.query("SELECT token, tokentype FROM tokenentry WHERE processorname = ?", rs -> {
            byte[] token = rs.getBytes(1);
            String type = rs.getString(2);
            if (token == null || type == null) {
                unreadable[0] = true;
            } else {
                segments.add(serializer.deserialize(new SimpleSerializedObject<>(token, byte[].class, type, null)));
            }
        }, processor);
        return !unreadable[0] && !segments.isEmpty() && segments.stream().allMatch(t -> past(t, index));
    }

    /** The segment's token has seen event {@code index} (not waiting for it in a gap). */
    static boolean past(TrackingToken token, long index) {
        TrackingToken t = WrappedToken.unwrapLowerBound(token);
        if (t instanceof GapAwareTrackingToken g) {
            return g.getIndex() >= index && !g.getGaps().contains(index);
        }
        return t != null && t.position().orElse(-1) >= index;
    }
}
