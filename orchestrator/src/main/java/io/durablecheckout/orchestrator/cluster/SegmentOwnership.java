package io.durablecheckout.orchestrator.cluster;

import org.axonframework.config.EventProcessingConfiguration;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Who holds which segment of which processor, cluster-wide, read from the token store (every node's claims are rows
 * there), plus which of them this node holds. A claim older than the claim timeout belongs to a node that stopped
 * extending it (dead or paused): any node running that processor takes it over at its next claim attempt.
 */
@Component
public class SegmentOwnership {

    private final JdbcTemplate jdbc;
    private final EventProcessingConfiguration processing;
    private final String node;
    private final Duration claimTimeout;

    public SegmentOwnership(JdbcTemplate jdbc, EventProcessingConfiguration processing, ClusterProperties cluster) {
        this.jdbc = jdbc;
        this.processing = processing;
        this.node = cluster.nodeId();
        this.claimTimeout = cluster.claimTimeout();
    }

    public String node() {
        return node;
    }

    public Map<String, Object> snapshot() {
        Map<String, List<Map<String, Object>>> byProcessor = new TreeMap<>();
        OffsetDateTime now = jdbc.queryForObject("SELECT now()", OffsetDateTime.class);
        jdbc.query("SELECT processorname, segment, owner, timestamp FROM tokenentry ORDER BY 1, 2", rs -> {
            Map<String, Object> seg = new LinkedHashMap<>();
            String processor = rs.getString(1);
            int segment = rs.getInt(2);
            String owner = rs.getString(3);
            seg.put("segment", segment);
            seg.put("owner", owner);
            seg.put("claimedAt", rs.getString(4));
            Long age = ageSeconds(rs.getString(4), now);
            seg.put("claimAgeSeconds", age);
            seg.put("claimExpired", owner != null && age != null && age > claimTimeout.toSeconds());
            seg.put("heldHere", node.equals(owner) && heldLocally(processor, segment));
            byProcessor.computeIfAbsent(processor, k -> new ArrayList<>()).add(seg);
        });
        List<Map<String, Object>> processors = new ArrayList<>();
        byProcessor.forEach((name, segments) -> {
            Map<String, Integer> owners = new TreeMap<>();
            segments.forEach(s -> owners.merge(s.get("owner") == null ? "(unclaimed)" : (String) s.get("owner"), 1,
                    Integer::sum));
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("name", name);
            p.put("runsHere", processing.eventProcessor(name).isPresent());
            p.put("segmentCount", segments.size());
            p.put("segmentsByOwner", owners);
            p.put("segments", segments);
            processors.add(p);
        });
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("node", node);
        out.put("claimTimeoutSeconds", claimTimeout.toSeconds());
        out.put("processors", processors);
        return out;
    }

    private boolean heldLocally(String processor, int segment) {
        return processing.eventProcessor(processor)
                .filter(p -> p instanceof StreamingEventProcessor)
                .map(p -> ((StreamingEventProcessor) p).processingStatus().containsKey(segment))
                .orElse(false);
    }

    /** Axon writes the claim time as an ISO-8601 string. */
    private static Long ageSeconds(String timestamp, OffsetDateTime now) {
        if (timestamp == null || now == null) {
            return null;
        }
        try {
            return Math.max(0, Duration.between(java.time.Instant.parse(timestamp), now.toInstant()).toSeconds());
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
