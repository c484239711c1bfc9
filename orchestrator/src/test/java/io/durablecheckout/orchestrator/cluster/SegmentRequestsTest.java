package io.durablecheckout.orchestrator.cluster;

import org.junit.jupiter.api.Test;

import static io.durablecheckout.orchestrator.cluster.SegmentRequests.MERGE;
import static io.durablecheckout.orchestrator.cluster.SegmentRequests.Progress.ALREADY_DONE;
import static io.durablecheckout.orchestrator.cluster.SegmentRequests.Progress.CHANGED;
import static io.durablecheckout.orchestrator.cluster.SegmentRequests.Progress.READY;
import static io.durablecheckout.orchestrator.cluster.SegmentRequests.SPLIT;
import static io.durablecheckout.orchestrator.cluster.SegmentRequests.progress;
import static io.durablecheckout.orchestrator.cluster.SegmentRequests.refusal;
import static org.assertj.core.api.Assertions.assertThat;

/** What a segment request may ask, and how a node judges one against the segments it finds (decision 137). */
class SegmentRequestsTest {

    @Test
    void anUnknownProcessorOrSegmentIsRefusedAsUnknown() {
        assertThat(refusal(SPLIT, 0, new int[0]).unknown()).isTrue();
        assertThat(refusal(SPLIT, 2, new int[] {0, 1}).unknown()).isTrue();
        assertThat(refusal(MERGE, 5, new int[] {0, 1}).unknown()).isTrue();
        assertThat(refusal(SPLIT, 0, new int[] {0})).isNull();
        assertThat(refusal(SPLIT, 1, new int[] {0, 1})).isNull();
    }

    @Test
    void aMergeNeedsASiblingOfTheSameSize() {
        assertThat(refusal(MERGE, 0, new int[] {0})).as("one segment: nothing to merge with")
                .isNotNull().extracting(SegmentRequests.Refusal::unknown).isEqualTo(false);
        assertThat(refusal(MERGE, 0, new int[] {0, 1})).isNull();
        assertThat(refusal(MERGE, 1, new int[] {0, 1})).isNull();
        // 0 split again: 0 and 2 are quarters, 1 a half; 1's sibling 0 is a quarter, not its size
        assertThat(refusal(MERGE, 1, new int[] {0, 1, 2})).isNotNull()
                .extracting(SegmentRequests.Refusal::unknown).isEqualTo(false);
        assertThat(refusal(MERGE, 2, new int[] {0, 1, 2})).isNull();
        assertThat(SegmentRequests.sibling(2, new int[] {0, 1, 2})).isEqualTo(0);
    }

    @Test
    void aRequestIsReadyWhileTheSegmentsAreAsAskedAndDoneWhenTheyAreAsItLeavesThem() {
        assertThat(progress(SPLIT, 0, new int[] {0}, new int[] {0})).isEqualTo(READY);
        assertThat(progress(SPLIT, 0, new int[] {0}, new int[] {0, 1})).isEqualTo(ALREADY_DONE);
        assertThat(progress(SPLIT, 0, new int[] {0, 1}, new int[] {1, 0, 2})).isEqualTo(ALREADY_DONE);
        assertThat(progress(SPLIT, 1, new int[] {0, 1}, new int[] {0, 1, 3})).isEqualTo(ALREADY_DONE);
        assertThat(progress(SPLIT, 1, new int[] {0, 1}, new int[] {0, 1, 2})).as("the other one split")
                .isEqualTo(CHANGED);
        assertThat(progress(MERGE, 0, new int[] {0, 1}, new int[] {0})).isEqualTo(ALREADY_DONE);
        assertThat(progress(MERGE, 1, new int[] {0, 1}, new int[] {0})).isEqualTo(ALREADY_DONE);
        assertThat(progress(MERGE, 2, new int[] {0, 1, 2}, new int[] {0, 1})).isEqualTo(ALREADY_DONE);
        assertThat(progress(MERGE, 2, new int[] {0, 1, 2}, new int[] {0, 2})).isEqualTo(CHANGED);
        assertThat(progress(MERGE, 0, new int[] {0, 1}, new int[] {0, 1, 2})).isEqualTo(CHANGED);
    }
}
