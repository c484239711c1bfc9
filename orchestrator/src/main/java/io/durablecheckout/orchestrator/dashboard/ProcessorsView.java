package io.durablecheckout.orchestrator.dashboard;

import org.axonframework.eventhandling.EventProcessor;
import org.axonframework.eventhandling.EventTrackerStatus;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventsourcing.eventstore.EventStore;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Each event processor as the cluster sees it: its segments from the token store (claim owner, position, lag in
 * events and in seconds) and, for the segments this node holds, Axon's own status (caught up, replaying, error).
 */
@Component
public class ProcessorsView {

    private static final Pattern INDEX = Pattern.compile("\"index\"\\s*:\\s*(\\d+)");

    private final org.axonframework.config.EventProcessingConfiguration processing;
    private final EventStore eventStore;
    private final JdbcTemplate jdbc;
    private final Clock clock;

    public ProcessorsView(org.axonframework.config.EventProcessingConfiguration processing, EventStore eventStore,
                          JdbcTemplate jdbc, Clock clock) {
        this.processing = processing;
        this.eventStore = eventStore;
        this.jdbc = jdbc;
        this.clock = clock;
    }

    public Map<String, Object> processors() {
        Instant now = clock.instant();
        TrackingToken headToken = eventStore.createHeadToken();
        long head = headToken == null ? -1 : headToken.position().orElse(-1);
        Map<String, List<Map<String, Object>>> tokens = new LinkedHashMap<>();
        jdbc.query("SELECT processorname, segment, owner, timestamp, token FROM tokenentry ORDER BY 1, 2", rs -> {
            Map<String, Object> seg = new LinkedHashMap<>();
            seg.put("segment", rs.getInt(2));
            seg.put("owner", rs.getString(3));
            seg.put("claimedAt", rs.getString(4));
            byte[] token = rs.getBytes(5);
            Long position = position(token);
            seg.put("position", position);
            tokens.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(seg);
        });
        List<Map<String, Object>> out = new ArrayList<>();
        // this node's processors, then those only other nodes run (the split deployment): their owners are in the
        // token store too, so the page shows every processor of the cluster
        Map<String, EventProcessor> all = new LinkedHashMap<>(processing.eventProcessors());
        tokens.keySet().forEach(name -> all.putIfAbsent(name, null));
        for (Map.Entry<String, EventProcessor> e : all.entrySet()) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("name", e.getKey());
            p.put("running", e.getValue() != null && e.getValue().isRunning());
            p.put("error", e.getValue() != null && e.getValue().isError());
            Map<Integer, EventTrackerStatus> local = e.getValue() instanceof StreamingEventProcessor s
                    ? s.processingStatus() : Map.of();
            List<Map<String, Object>> segments = tokens.getOrDefault(e.getKey(), List.of());
            long maxLag = 0;
            long maxLagSeconds = 0;
            for (Map<String, Object> seg : segments) {
                Long position = (Long) seg.get("position");
                long lag = position == null ? Math.max(0, head + 1) : Math.max(0, head - position);
                seg.put("lagEvents", lag);
                long seconds = lag == 0 ? 0 : oldestUnprocessedAge(position == null ? -1 : position, now);
                seg.put("lagSeconds", seconds);
                EventTrackerStatus status = local.get((Integer) seg.get("segment"));
                seg.put("heldHere", status != null);
                if (status != null) {
                    seg.put("caughtUp", status.isCaughtUp());
                    seg.put("replaying", status.isReplaying());
                    seg.put("errorState", status.isErrorState());
                    seg.put("lastError", status.getError() == null ? null : status.getError().toString());
                }
                maxLag = Math.max(maxLag, lag);
                maxLagSeconds = Math.max(maxLagSeconds, seconds);
            }
            p.put("segments", segments);
            p.put("lagEvents", maxLag);
            p.put("lagSeconds", maxLagSeconds);
            out.add(p);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("headPosition", head);
        result.put("processors", out);
        return result;
    }

    /** Seconds since the first event the segment has not handled yet was stored. */
    private long oldestUnprocessedAge(long position, Instant now) {
        List<String> ts = jdbc.queryForList("SELECT timestamp FROM domainevententry WHERE globalindex > ? "
                + "ORDER BY globalindex LIMIT 1", String.class, position);
        if (ts.isEmpty()) {
            return 0;
        }
        try {
            return Math.max(0, Duration.between(Instant.parse(ts.get(0)), now).toSeconds());
        } catch (RuntimeException e) {
            return 0;
        }
    }

    /** The token's position, read from its JSON (a replay token's current token, not the one at reset). */
    static Long position(byte[] token) {
        if (token == null) {
            return null;
        }
        String json = new String(token, StandardCharsets.UTF_8);
        int current = json.indexOf("\"currentToken\"");
        Matcher m = INDEX.matcher(current >= 0 ? json.substring(current) : json);
        return m.find() ? Long.parseLong(m.group(1)) : null;
    }
}
