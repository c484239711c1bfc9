package io.durablecheckout.orchestrator.replay;

import org.junit.jupiter.api.Test;

/** Incidents turned into regression tests (docs/replay.md, "An incident, end to end"). */
class IncidentRegressionTest {

    /** A payment that stayed unknown went to manual review after the two lookups its recorded policy allowed. */
    @Test
    void a_payment_still_pending_after_its_lookups_goes_to_manual_review() {
        ReplayAssertions.assertReplaysIdentically("incidents/manual-review-after-two-lookups.json");
    }
}
