package io.durablecheckout.orchestrator.cluster;

import org.axonframework.eventhandling.Segment;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.stereotype.Component;

import java.sql.Array;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * An operator's requests to split or merge a processor's segment on a live database ({@code segment_requests},
 * decision 137): recorded here by the admin API, carried out by the node that holds the segment's claim
 * ({@link SegmentRequestRunner}). At most one request per processor is pending, and each is judged against the
 * segments it was asked on ({@code segments_before}): a node that finds them changed the way the request changes them
 * (the holder died after Axon's commit, before it recorded the request as done) records it done, never splits twice.
 */
@Component
public class SegmentRequests {

    public static final String SPLIT = "split";
    public static final String MERGE = "merge";

    /** A request as the API shows it. */
    public record Request(long id, String processor, int segment, String action, String state,
                          List<Integer> segmentsBefore, List<Integer> segmentsAfter, String requestedBy,
                          String reason, String requestedAt, int attempts, String outcome, String finishedAt,
                          String finishedBy) {
    }

    /** Why a request cannot be recorded: the processor or segment is unknown, or nothing can be merged. */
    public record Refusal(boolean unknown, String detail) {
    }

    /** What a pending request needs, given the segments now. */
    enum Progress { READY, ALREADY_DONE, CHANGED }

    private static final String COLUMNS = "id, processor, segment, action, state, segments_before, segments_after,"
            + " requested_by, reason, requested_at, attempts, outcome, finished_at, finished_by";

    private final JdbcTemplate jdbc;

    public SegmentRequests(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** The processor's segment ids as the token store has them, ascending (none: an unknown processor). */
    public int[] segments(String processor) {
        return jdbc.queryForList("SELECT segment FROM tokenentry WHERE processorname = ? ORDER BY segment",
                Integer.class, processor).stream().mapToInt(Integer::intValue).toArray();
    }

    /** Null when {@code action} on {@code segment} is possible with the processor's segments {@code ids}. */
    public static Refusal refusal(String action, int segment, int[] ids) {
        if (ids.length == 0) {
            return new Refusal(true, "No processor of that name has segments in the token store");
        }
        if (Arrays.stream(ids).noneMatch(id -> id == segment)) {
            return new Refusal(true, "The processor has no segment " + segment + "; it has " + Arrays.toString(ids));
        }
        if (MERGE.equals(action)) {
            Segment self = Segment.computeSegment(segment, ids);
            int sibling = self.mergeableSegmentId();
            if (sibling == segment || Arrays.stream(ids).noneMatch(id -> id == sibling)
                    || Segment.computeSegment(sibling, ids).getMask() != self.getMask()) {
                return new Refusal(false, "Segment " + segment + " has no sibling of its size to merge with (segments "
                        + Arrays.toString(ids) + "): merge the segment its half was split from, or split first");
            }
        }
        return null;
    }

    /** The segment a merge of {@code segment} takes in, among {@code ids}. */
    static int sibling(int segment, int[] ids) {
        return Segment.computeSegment(segment, ids).mergeableSegmentId();
    }

    /**
     * Whether the request is still to be carried out: the segments are as when it was asked ({@code READY}), as the
     * request leaves them ({@code ALREADY_DONE}), or otherwise ({@code CHANGED}: it cannot be judged any more).
     */
    static Progress progress(String action, int segment, int[] before, int[] now) {
        if (Arrays.equals(sorted(before), sorted(now))) {
            return Progress.READY;
        }
        Segment asked = Segment.computeSegment(segment, before);
        int[] expected;
        if (SPLIT.equals(action)) {
            expected = IntStream.concat(Arrays.stream(before), IntStream.of(asked.split()[1].getSegmentId())).toArray();
        } else {
            Segment other = Segment.computeSegment(asked.mergeableSegmentId(), before);
            int gone = Math.max(asked.getSegmentId(), other.getSegmentId());
            expected = Arrays.stream(before).filter(id -> id != gone).toArray();
        }
        return Arrays.equals(sorted(expected), sorted(now)) ? Progress.ALREADY_DONE : Progress.CHANGED;
    }

    private static int[] sorted(int[] ids) {
        int[] copy = ids.clone();
        Arrays.sort(copy);
        return copy;
    }

    /** Records a pending request; empty when the processor has one pending already. */
    public Optional<Long> record(String processor, int segment, String action, int[] before, String actor,
                                 String reason) {
        try {
            return Optional.ofNullable(jdbc.queryForObject("""
                    INSERT INTO segment_requests (processor, segment, action, segments_before, requested_by, reason)
                    VALUES (?, ?, ?, ?::integer[], ?, ?) RETURNING id""", Long.class, processor, segment, action,
                    pgArray(before), actor, reason));
        } catch (DuplicateKeyException e) {
            return Optional.empty();
        }
    }

    public Optional<Request> find(long id) {
        return jdbc.query("SELECT " + COLUMNS + " FROM segment_requests WHERE id = ?", ROW, id).stream().findFirst();
    }

    /** The latest requests first. */
    public List<Request> latest(int limit) {
        return jdbc.query("SELECT " + COLUMNS + " FROM segment_requests ORDER BY id DESC LIMIT ?", ROW, limit);
    }

    List<Request> pending() {
        return jdbc.query("SELECT " + COLUMNS + " FROM segment_requests WHERE state = 'pending' ORDER BY id", ROW);
    }

    /** Done (or failed) once: a request another node finished first is left as it is. */
    boolean finish(long id, boolean done, String outcome, int[] after, String node) {
        return jdbc.update("""
                UPDATE segment_requests SET state = ?, outcome = ?, segments_after = ?::integer[], finished_at = now(),
                       finished_by = ?
                WHERE id = ? AND state = 'pending'""", done ? "done" : "failed", outcome, pgArray(after), node, id) == 1;
    }

    /** One more attempt that did not succeed; its outcome says why. */
    void attempted(long id, String outcome) {
        jdbc.update("UPDATE segment_requests SET attempts = attempts + 1, outcome = ? WHERE id = ? AND state = 'pending'",
                outcome, id);
    }

    private static String pgArray(int[] ids) {
        return "{" + String.join(",", Arrays.stream(ids).mapToObj(Integer::toString).toList()) + "}";
    }

    private static final RowMapper<Request> ROW = (rs, n) -> new Request(rs.getLong("id"), rs.getString("processor"),
            rs.getInt("segment"), rs.getString("action"), rs.getString("state"), ints(rs.getArray("segments_before")),
            ints(rs.getArray("segments_after")), rs.getString("requested_by"), rs.getString("reason"),
            instant(rs.getTimestamp("requested_at")), rs.getInt("attempts"), rs.getString("outcome"),
            instant(rs.getTimestamp("finished_at")), rs.getString("finished_by"));

    private static List<Integer> ints(Array array) throws SQLException {
        return array == null ? null : Arrays.stream((Integer[]) array.getArray()).toList();
    }

    private static String instant(java.sql.Timestamp at) {
        return at == null ? null : at.toInstant().toString();
    }

    static int[] toArray(List<Integer> ids) {
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }
}
