package io.durablecheckout.orchestrator.cluster;

import java.util.Comparator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which segment one processor of this node gives up, or takes back, this round, following each release until it is
 * settled. A live member below its share may still be unable to claim: Axon bars a segment whose work package ended
 * on its own on a node for 1, 2, 4 … 60 s (a node woken from SIGSTOP finds its claims taken and ends so), and a
 * release whose batch takes a while to stop escalates the releasing node's own bar the same way (every coordination
 * pass that finds the release still pending doubles it). Released every round regardless, a segment came back a second
 * later, each time interrupting its work (a SIGSTOP row of the fault matrix took 78.7 s); released when both nodes bar
 * it, nobody processed it at all. So each release is followed for a few rounds before the next: held by another
 * member, all is well; held by nobody for two rounds, this node takes it back ({@code claimSegment}, which lifts its
 * own bar); back with this node, the next release waits 1, 2, 4 … 16 rounds and offers another segment. A change in
 * the live members starts afresh. Rounds, not clock time: the caller's fixed-delay schedule is the clock.
 * decisions.md §84.
 */
final class ReleaseBackoff {

    static final int MAX_ROUNDS_WAITED = 16;
    /** Rounds a released segment may stay unclaimed before this node takes it back. */
    static final int TAKE_BACK_AFTER = 2;
    /** Rounds a released segment is followed while this node still holds it (its batch may take that long to stop). */
    static final int SETTLE_ROUNDS = 2;

    /** A segment to give up ({@code release}) or to take back. */
    record Move(int segment, boolean release) {
    }

    private final String node;
    private Set<String> members = Set.of();
    private Integer released;  // given up, followed until it settles
    private int followed;      // rounds since it was given up
    private int unheld;        // consecutive rounds nobody held it
    private Integer refused;   // the last release that came back here: another is offered first
    private int returned;      // releases in a row that came back here
    private int waiting;       // rounds still to wait before the next release

    ReleaseBackoff(String node) {
        this.node = node;
    }

    /**
     * @param owners    each segment of the processor and the node that holds its claim (null: nobody)
     * @param members   the live members running the processor, this node among them
     * @param overShare whether this node holds more than its fair share
     * @return what to do this round, or null
     */
    Move next(Map<Integer, String> owners, Set<String> members, boolean overShare) {
        if (!members.equals(this.members)) {
            this.members = Set.copyOf(members);
            released = null;
            returned = 0;
            waiting = 0;
            refused = null;
        }
        if (released != null) {
            int segment = released;
            String owner = owners.get(segment);
            followed++;
            if (owner == null) {
                if (++unheld < TAKE_BACK_AFTER) {
                    return null;
                }
                cameBack(segment);
                return new Move(segment, false);
            }
            unheld = 0;
            if (!owner.equals(node)) {
                returned = 0;
                refused = null;
                released = null;
            } else if (followed >= SETTLE_ROUNDS) {
                cameBack(segment);
            } else {
                return null; // still ours: its batch may not have stopped yet
            }
        }
        if (waiting > 0) {
            waiting--;
            return null;
        }
        if (!overShare) {
            return null;
        }
        Integer segment = owners.entrySet().stream()
                .filter(e -> node.equals(e.getValue()))
                .map(Map.Entry::getKey)
                .max(Comparator.comparing((Integer s) -> !Objects.equals(s, refused)).thenComparing(s -> s))
                .orElse(null);
        if (segment == null) {
            return null;
        }
        released = segment;
        followed = 0;
        unheld = 0;
        return new Move(segment, true);
    }

    private void cameBack(int segment) {
        returned++;
        waiting = Math.min(1 << (returned - 1), MAX_ROUNDS_WAITED);
        refused = segment;
        released = null;
    }
}
