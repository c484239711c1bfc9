package io.durablecheckout.orchestrator.cluster;

import java.lang.management.ManagementFactory;

/**
 * The name this process's database sessions carry ({@code application_name}): {@code checkout <incarnation> <node>},
 * cut to PostgreSQL's 63 bytes. The incarnation (this JVM's start time and pid) tells a node's sessions from those of
 * an earlier process under the same node id, so a live node never ends the sessions of a restarted one
 * ({@link SegmentBalancer}); operators see which node holds a lock in {@code pg_stat_activity}.
 */
public record NodeSession(String applicationName) {

    static final int MAX_NAME_BYTES = 63; // NAMEDATALEN - 1: PostgreSQL truncates longer names

    public static NodeSession of(ClusterProperties cluster) {
        var runtime = ManagementFactory.getRuntimeMXBean();
        String incarnation = Long.toString(runtime.getStartTime(), 36) + Long.toString(runtime.getPid(), 36);
        String name = "checkout " + incarnation + " " + cluster.nodeId();
        StringBuilder ascii = new StringBuilder();
        name.codePoints().filter(c -> c >= 32 && c < 127).forEach(ascii::appendCodePoint);
        return new NodeSession(ascii.length() > MAX_NAME_BYTES ? ascii.substring(0, MAX_NAME_BYTES) : ascii.toString());
    }
}
