package io.durablecheckout.orchestrator.cluster;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.Map;

/**
 * {@code GET /api/v1/operator/processors} (operator-read key): segment ownership across the cluster. Served by every
 * node, including activity-only ones (no orchestrator condition), so an operator can ask any of them.
 */
@RestController
public class ClusterController {

    private final SegmentOwnership ownership;

    public ClusterController(SegmentOwnership ownership) {
        this.ownership = ownership;
    }

    @GetMapping("/api/v1/operator/processors")
    public Map<String, Object> processors() {
        return ownership.snapshot();
    }
}
