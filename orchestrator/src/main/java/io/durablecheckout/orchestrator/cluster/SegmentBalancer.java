package io.durablecheckout.orchestrator.cluster;

import org.axonframework.config.EventProcessingConfiguration;
import org.axonframework.eventhandling.EventProcessor;
import org.axonframework.eventhandling.StreamingEventProcessor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Shares each processor's segments between the nodes that run it. Axon's pooled processor claims every free segment
 * it may (here: all of them) and keeps them while it lives, so without this the first node would hold everything and
 * a node that joins would idle until another died. Every {@code checkout.processing.balance-interval} each node
 * records that it runs a processor ({@code cluster_members}) and, if it holds more than its fair share (segments
 * divided by live members: at most rounded up, and no more than rounded down while another member is short),
 * releases one segment; Axon keeps it from reclaiming that segment for two claim intervals, so a node below its share
 * picks it up; one that cannot is not offered the same segment every round, and a released segment nobody claims is
 * taken back ({@link ReleaseBackoff}). A one-segment processor (the saga, by design) is never released: its fair
 * share is one; it moves only when its owner dies (after the claim timeout). Handing over a segment is safe
 * at any moment: the token records how far it got, and every handler is idempotent (DESIGN.md).
 * <p>
 * It also ends the database sessions of a member that stopped refreshing while inside a transaction (frozen, not
 * dead: a dead process's connections close). PostgreSQL's idle-in-transaction timeout ends most of them, but not a
 * session whose statement is still running on the frozen client's behalf (the server blocked sending it a result, or
 * waiting for the rest of a statement): its row locks, a segment claim's among them, would hold the takeover for as long
 * as the node stays frozen. Only sessions named by a member's last refresh ({@link NodeSession}) are ended, so a
 * restarted node under the same id is never touched; the frozen node's transactions fail when it wakes, which its
 * fencing tokens would have refused anyway. docs/decisions.md §81.
 */
@Component
@ConditionalOnProperty(name = "checkout.processing.balance", havingValue = "true", matchIfMissing = true)
class SegmentBalancer extends PeriodicTask {

    private static final Logger log = LoggerFactory.getLogger(SegmentBalancer.class);

    private final JdbcTemplate jdbc;
    private final EventProcessingConfiguration processing;
    private final String node;
    private final Duration liveWindow;
    private final String sessionName;
    private final Map<String, ReleaseBackoff> releases = new HashMap<>();

    public SegmentBalancer(JdbcTemplate jdbc, EventProcessingConfiguration processing, ClusterProperties cluster,
                           NodeSession session) {
        super("segment-balancer", cluster.balanceInterval());
        this.jdbc = jdbc;
        this.processing = processing;
        this.node = cluster.nodeId();
        this.sessionName = session.applicationName();
        Duration interval = cluster.balanceInterval();
        Duration claimTimeout = cluster.claimTimeout();
        // a member counts while it refreshed within the claim timeout (its claims would be stolen after that anyway)
        this.liveWindow = claimTimeout.compareTo(interval.multipliedBy(3)) > 0 ? claimTimeout : interval.multipliedBy(3);
    }

    @Override
    public void stop() {
        super.stop();
        // leave at once rather than after the live window: the others rebalance without waiting for us
        try {
            jdbc.update("DELETE FROM cluster_members WHERE node_id = ?", node);
        } catch (RuntimeException e) {
            log.debug("could not remove {} from cluster_members", node, e);
        }
    }

    @Override
    void runOnce() {
        balance();
    }

    void balance() {
        endFrozenMembersSessions();
        for (Map.Entry<String, EventProcessor> e : processing.eventProcessors().entrySet()) {
            if (!(e.getValue() instanceof StreamingEventProcessor p) || !p.isRunning()) {
                continue;
            }
            String name = e.getKey();
            jdbc.update("""
                    INSERT INTO cluster_members (node_id, processor, last_seen, session_name) VALUES (?, ?, now(), ?)
                    ON CONFLICT (node_id, processor) DO UPDATE SET last_seen = now(), session_name = EXCLUDED.session_name
                    """, node, name, sessionName);
            List<String> members = jdbc.queryForList("SELECT node_id FROM cluster_members WHERE processor = ?"
                    + " AND last_seen > now() - make_interval(secs => ?)", String.class, name,
                    (double) liveWindow.toMillis() / 1000);
            Map<String, Integer> heldBy = new HashMap<>();
            members.forEach(m -> heldBy.put(m, 0));
            Map<Integer, String> owners = new HashMap<>();
            jdbc.query("SELECT segment, owner FROM tokenentry WHERE processorname = ?",
                    (RowCallbackHandler) row -> owners.put(row.getInt(1), row.getString(2)), name);
            owners.values().forEach(owner -> heldBy.computeIfPresent(owner, (m, n) -> n + 1));
            int segments = owners.size();
            if (members.isEmpty() || segments <= 1) {
                continue;
            }
            int floor = segments / members.size();
            int ceil = (segments + members.size() - 1) / members.size();
            boolean someoneShort = heldBy.values().stream().anyMatch(n -> n < floor);
            int held = p.processingStatus().size();
            // over the ceiling, or above the floor while another member is below it (4 segments on 3 nodes: 2,1,1)
            boolean overShare = held > ceil || (held > floor && someoneShort);
            ReleaseBackoff.Move move = releases.computeIfAbsent(name, n -> new ReleaseBackoff(node))
                    .next(owners, heldBy.keySet(), overShare);
            if (move != null && move.release()) {
                log.info("releasing segment {} of {}: holding {} of {} segments, members hold {}",
                        move.segment(), name, held, segments, heldBy);
                p.releaseSegment(move.segment());
            } else if (move != null) {
                log.warn("taking back segment {} of {}: released by this node, held by nobody for {} rounds",
                        move.segment(), name, ReleaseBackoff.TAKE_BACK_AFTER);
                p.claimSegment(move.segment());
            }
        }
    }

    /**
     * Ends the sessions, open in a transaction for longer than the live window, of members not seen for that long.
     * A member's name is the one its last refresh recorded; this node's own sessions are never ended.
     */
    void endFrozenMembersSessions() {
        double window = (double) liveWindow.toMillis() / 1000;
        List<Map<String, Object>> frozen = jdbc.queryForList("""
                SELECT a.pid, a.application_name, a.state, a.wait_event_type, a.wait_event,
                       round(extract(epoch FROM now() - a.xact_start)) AS in_transaction_s
                FROM pg_stat_activity a
                JOIN (SELECT session_name FROM cluster_members WHERE session_name IS NOT NULL GROUP BY session_name
                      HAVING max(last_seen) < now() - make_interval(secs => ?)) m ON m.session_name = a.application_name
                WHERE a.application_name <> ? AND a.pid <> pg_backend_pid()
                  AND a.xact_start < now() - make_interval(secs => ?)""", window, sessionName, window);
        for (Map<String, Object> s : frozen) {
            try {
                jdbc.queryForObject("SELECT pg_terminate_backend(?)", Boolean.class, s.get("pid"));
                log.warn("ended database session {} of {}, a member not seen for over {} s and in a transaction for {} s"
                        + " ({}, waiting on {}/{}): its locks would hold up the takeover of its work", s.get("pid"),
                        s.get("application_name"), window, s.get("in_transaction_s"), s.get("state"),
                        s.get("wait_event_type"), s.get("wait_event"));
            } catch (RuntimeException e) {
                // another role's session, without pg_signal_backend: the idle-in-transaction timeout is what remains
                log.warn("could not end database session {} of {}: {}", s.get("pid"), s.get("application_name"),
                        e.toString());
            }
        }
    }
}
