package io.durablecheckout.orchestrator.cluster;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Balancing rounds of a four-segment processor on two live nodes, "a" holding everything, played against how Axon
 * answers a release: by the next round (2 s; the releasing node may reclaim after 1 s) the segment is either the other
 * node's or back with "a". The other node is live but cannot claim until {@code claimsFrom} (a segment barred by its
 * error back-off, as after SIGCONT). Then the cases one by one, among them a release that nobody claims at all.
 */
class ReleaseBackoffTest {

    private static final Set<String> TWO = Set.of("a", "b");

    /** The rounds in which "a" released a segment that came straight back to it: each one interrupted its work. */
    private record Played(List<Integer> wasted, int heldByB, int roundBGotItsShare) {
    }

    private static Played play(int rounds, int claimsFrom) {
        ReleaseBackoff backoff = new ReleaseBackoff("a");
        Map<Integer, String> owners = new HashMap<>(Map.of(0, "a", 1, "a", 2, "a", 3, "a"));
        List<Integer> wasted = new ArrayList<>();
        int gotShare = -1;
        Integer released = null;
        for (int round = 0; round < rounds; round++) {
            if (released != null) {
                if (round >= claimsFrom) {
                    owners.put(released, "b");
                } else {
                    owners.put(released, "a");
                    wasted.add(round - 1);
                }
            }
            long heldByA = owners.values().stream().filter("a"::equals).count();
            if (heldByA == 2 && gotShare < 0) {
                gotShare = round;
            }
            ReleaseBackoff.Move move = backoff.next(Map.copyOf(owners), TWO, heldByA > 2);
            released = move != null && move.release() ? move.segment() : null;
        }
        int heldByB = (int) owners.values().stream().filter("b"::equals).count();
        return new Played(wasted, heldByB, gotShare);
    }

    private static ReleaseBackoff.Move release(int segment) {
        return new ReleaseBackoff.Move(segment, true);
    }

    @Test
    void aMemberThatClaimsGetsItsShareInTwoRounds() {
        Played played = play(10, 0);
        assertThat(played.wasted()).isEmpty();
        assertThat(played.heldByB()).isEqualTo(2);
        assertThat(played.roundBGotItsShare()).isEqualTo(2);
    }

    @Test
    void aMemberThatCannotClaimIsNotOfferedASegmentEveryOtherRound() {
        // two minutes of rounds against a member that never claims: without the follow-up, 30 interruptions
        Played played = play(60, Integer.MAX_VALUE);
        assertThat(played.wasted()).hasSizeLessThanOrEqualTo(7);
        assertThat(played.heldByB()).isZero();
    }

    @Test
    void theNextOfferTriesAnotherSegment() {
        ReleaseBackoff backoff = new ReleaseBackoff("a");
        Map<Integer, String> all = Map.of(0, "a", 1, "a", 2, "a", 3, "a");
        assertThat(backoff.next(all, TWO, true)).isEqualTo(release(3));
        assertThat(backoff.next(all, TWO, true)).isNull(); // still ours: its batch may not have stopped
        assertThat(backoff.next(all, TWO, true)).isNull(); // back with us: wait a round
        assertThat(backoff.next(all, TWO, true)).isEqualTo(release(2));
    }

    @Test
    void aMemberThatRecoversIsServedWithinTheLongestWait() {
        Played played = play(80, 40);
        assertThat(played.heldByB()).isEqualTo(2);
        assertThat(played.roundBGotItsShare()).isBetween(41, 40 + ReleaseBackoff.MAX_ROUNDS_WAITED + 4);
    }

    @Test
    void aSegmentInTransitHoldsBackTheNextRelease() {
        ReleaseBackoff backoff = new ReleaseBackoff("a");
        assertThat(backoff.next(Map.of(0, "a", 1, "a", 2, "a", 3, "a"), TWO, true)).isEqualTo(release(3));
        assertThat(backoff.next(unheld(3), TWO, true)).isNull();
        assertThat(backoff.next(Map.of(0, "a", 1, "a", 2, "a", 3, "b"), TWO, true)).isEqualTo(release(2));
    }

    @Test
    void aReleasedSegmentNobodyClaimsIsTakenBack() {
        // both nodes bar it (a slow release escalates Axon's bar on the releasing node): nobody would process it
        ReleaseBackoff backoff = new ReleaseBackoff("a");
        assertThat(backoff.next(Map.of(0, "a", 1, "a", 2, "a", 3, "a"), TWO, true)).isEqualTo(release(3));
        assertThat(backoff.next(Map.of(0, "a", 1, "a", 2, "a", 3, "a"), TWO, true)).isNull(); // its batch stopping
        assertThat(backoff.next(unheld(3), TWO, true)).isNull();
        assertThat(backoff.next(unheld(3), TWO, true)).isEqualTo(new ReleaseBackoff.Move(3, false));
        assertThat(backoff.next(Map.of(0, "a", 1, "a", 2, "a", 3, "a"), TWO, true))
                .as("then a pause before offering another").isNull();
        assertThat(backoff.next(Map.of(0, "a", 1, "a", 2, "a", 3, "a"), TWO, true)).isEqualTo(release(2));
    }

    @Test
    void aChangeOfMembersStartsAfresh() {
        ReleaseBackoff backoff = new ReleaseBackoff("a");
        Map<Integer, String> all = Map.of(0, "a", 1, "a", 2, "a", 3, "a");
        backoff.next(all, TWO, true);
        assertThat(backoff.next(all, TWO, true)).isNull();
        assertThat(backoff.next(all, Set.of("a", "b", "c"), true)).isEqualTo(release(3));
    }

    private static Map<Integer, String> unheld(int segment) {
        Map<Integer, String> owners = new HashMap<>(Map.of(0, "a", 1, "a", 2, "a", 3, "a"));
        owners.put(segment, null);
        return owners;
    }
}
