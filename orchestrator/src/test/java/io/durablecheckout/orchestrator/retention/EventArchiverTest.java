package io.durablecheckout.orchestrator.retention;

import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventhandling.GlobalSequenceTrackingToken;
import org.axonframework.eventhandling.ReplayToken;
import org.axonframework.eventhandling.TrackingToken;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which events no processor has still to read, and how long a tenant's events stay hot. */
class EventArchiverTest {

    @Test
    void onlyIndexesBelowEverySegmentLessTheMarginAndInNoGapAreRead() {
        EventArchiver.Horizon h = EventArchiver.horizon(List.of(
                GapAwareTrackingToken.newInstance(100, Set.of(40L, 95L)),
                GapAwareTrackingToken.newInstance(120, Set.of(60L)),
                new GlobalSequenceTrackingToken(110)), 10);
        assertThat(h.below()).isEqualTo(91); // the least position (100) + 1 - 10
        assertThat(h.read(90)).isTrue();
        assertThat(h.read(91)).as("within the margin").isFalse();
        assertThat(h.read(40)).as("a gap of one segment").isFalse();
        assertThat(h.read(60)).as("a gap of another").isFalse();
        assertThat(h.read(41)).isTrue();
        assertThat(h.read(95)).isFalse();
    }

    @Test
    void aSegmentWithoutAPositionOrNoSegmentAtAllMovesNothing() {
        assertThat(EventArchiver.horizon(List.of(), 0)).isEqualTo(EventArchiver.Horizon.NONE);
        assertThat(EventArchiver.horizon(Arrays.asList(GapAwareTrackingToken.newInstance(5, Set.of()), null), 0))
                .isEqualTo(EventArchiver.Horizon.NONE);
        assertThat(EventArchiver.Horizon.NONE.read(Long.MIN_VALUE)).isFalse();
        assertThat(EventArchiver.horizon(List.of(GapAwareTrackingToken.newInstance(5, Set.of())), 0).read(5)).isTrue();
    }

    @Test
    void aResetProcessorCountsAtWhereItReplaysFrom() {
        TrackingToken replaying = ReplayToken.createReplayToken(GapAwareTrackingToken.newInstance(500, Set.of()),
                GapAwareTrackingToken.newInstance(20, Set.of()));
        EventArchiver.Horizon h = EventArchiver.horizon(List.of(replaying), 0);
        assertThat(h.read(20)).isTrue();
        assertThat(h.read(21)).isFalse();
    }

    @Test
    void aTenantsRetentionIsNeverShorterThanTheChargebackWindow() {
        EventArchiver archiver = new EventArchiver(null, null, null, new RetentionProperties(null, null, null, null,
                null, null, null));
        assertThat(archiver.retentionOf(null)).isEqualTo(Duration.ofDays(180));
        assertThat(archiver.retentionOf(30)).isEqualTo(Duration.ofDays(120));
        assertThat(archiver.retentionOf(365)).isEqualTo(Duration.ofDays(365));
        assertThat(new RetentionProperties(null, null, null, null, null, null, null).enabled()).isFalse();
        assertThatThrownBy(() -> new RetentionProperties(true, Duration.ofDays(-1), null, null, null, null, null))
                .hasMessageContaining("chargeback-window");
    }
}
