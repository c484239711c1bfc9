package io.durablecheckout.orchestrator.cluster;

import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which segment one processor of this node gives up this round, remembering what its last release came to. A live
 * member below its share may still be unable to claim: Axon blocks a segment whose work package failed on a node for
 * 1, 2, 4 … 60 s (a node woken from SIGSTOP finds its claims taken and fails exactly so), and a coordinator in its
 * error back-off claims nothing. Released every round regardless, the segment came back here a second later, each
 * time interrupting its work: one SIGSTOP row of the fault matrix took 78.7 s to settle that way. So a release is
 * followed up before the next: taken by another member, all is well; back with this node, the next release waits
 * 1, 2, 4 … 16 rounds and picks another segment; unclaimed yet, nothing else is released. A change in the live
 * members starts afresh. Rounds, not clock time: the caller's fixed-delay schedule is the clock. decisions.md §84.
 */
final class ReleaseBackoff {

    static final int MAX_ROUNDS_WAITED = 16;

    private final String node;
    private Set<String> members = Set.of();
    private Integer pending;   // released, not yet seen claimed by anyone
    private int pendingRounds;
    private Integer refused;   // the last release that came back here: another is tried first
    private int returned;      // releases in a row that came back here
    private int waiting;       // rounds still to wait before the next release

    ReleaseBackoff(String node) {
        this.node = node;
    }

    /**
     * @param owners    each segment of the processor and the node that holds its claim (null: nobody)
     * @param members   the live members running the processor, this node among them
     * @param overShare whether this node holds more than its fair share
     * @return the segment to release now, or null
     */
    Integer next(Map<Integer, String> owners, Set<String> members, boolean overShare) {
        if (!members.equals(this.members)) {
            this.members = Set.copyOf(members);
            returned = 0;
            waiting = 0;
            refused = null;
        }
        if (pending != null) {
            String owner = owners.get(pending);
            if (owner == null && ++pendingRounds <= MAX_ROUNDS_WAITED) {
                return null; // still on its way to someone: one release at a time
            }
            if (owner == null || owner.equals(node)) {
                returned++;
                waiting = Math.min(1 << (returned - 1), MAX_ROUNDS_WAITED);
                refused = pending;
            } else {
                returned = 0;
                refused = null;
            }
            pending = null;
        }
        if (waiting > 0) {
            waiting--;
            return null;
        }
        if (!overShare) {
            return null;
        }
        pendingRounds = 0;
        pending = owners.entrySet().stream()
                .filter(e -> node.equals(e.getValue()))
                .map(Map.Entry::getKey)
                .max(Comparator.comparing((Integer s) -> !Objects.equals(s, refused)).thenComparing(s -> s))
                .orElse(null);
        return pending;
    }
}
