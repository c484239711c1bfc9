package io.durablecheckout.orchestrator.web;

import io.durablecheckout.orchestrator.cluster.SegmentRequests;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.orchestrator.http.TextLimits;
import io.durablecheckout.orchestrator.tenancy.AuditLog;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Splitting or merging a processor's segment on a live database, for admin keys (docs/operations.md, "Segments";
 * decision 137). The answer is 202 with the request, recorded with its audit row in one transaction; the node holding
 * the segment carries it out within a few seconds, and {@code GET /segment-requests/{id}} says pending, done or failed
 * (with why). Served by every node, whatever it runs: the request is a row, not a call to this node's processors.
 */
@RestController
@RequestMapping("/api/v1/admin")
public class SegmentAdminController {

    private static final Pattern SEGMENT = Pattern.compile("0|[1-9][0-9]{0,8}");
    private static final Pattern ID = Pattern.compile("[1-9][0-9]{0,17}");

    private final SegmentRequests requests;
    private final AuditLog audit;
    private final TransactionTemplate transactions;

    public SegmentAdminController(SegmentRequests requests, AuditLog audit, TransactionTemplate transactions) {
        this.requests = requests;
        this.audit = audit;
        this.transactions = transactions;
    }

    public record SegmentChange(String reason) {
    }

    @PostMapping("/processors/{processor}/segments/{segment}/split")
    public ResponseEntity<SegmentRequests.Request> split(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                                         @PathVariable String processor, @PathVariable String segment,
                                                         @RequestBody(required = false) SegmentChange body) {
        return request(caller, processor, segment, SegmentRequests.SPLIT, body);
    }

    @PostMapping("/processors/{processor}/segments/{segment}/merge")
    public ResponseEntity<SegmentRequests.Request> merge(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                                         @PathVariable String processor, @PathVariable String segment,
                                                         @RequestBody(required = false) SegmentChange body) {
        return request(caller, processor, segment, SegmentRequests.MERGE, body);
    }

    @GetMapping("/segment-requests/{id}")
    public SegmentRequests.Request get(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                       @PathVariable String id) {
        requireAdmin(caller);
        if (!ID.matcher(id).matches()) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request",
                    "A request id is a positive number", List.of("id: a positive number"));
        }
        return requests.find(Long.parseLong(id)).orElseThrow(() -> new ApiProblemException(HttpStatus.NOT_FOUND,
                "not-found", "Unknown segment request", "No segment request " + id));
    }

    /** The latest 100 requests, newest first. */
    @GetMapping("/segment-requests")
    public List<SegmentRequests.Request> list(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller) {
        requireAdmin(caller);
        return requests.latest(100);
    }

    private ResponseEntity<SegmentRequests.Request> request(Caller caller, String processor, String segment,
                                                            String action, SegmentChange body) {
        requireAdmin(caller);
        List<String> errors = new ArrayList<>();
        if (!SEGMENT.matcher(segment).matches()) {
            errors.add("segment: a segment number, as GET /api/v1/operator/processors lists them");
        }
        String reason = TextLimits.reason(body == null ? null : body.reason(), errors);
        if (!errors.isEmpty()) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request",
                    "The request has " + errors.size() + " error(s)", errors);
        }
        int number = Integer.parseInt(segment);
        Long id = transactions.execute(tx -> {
            int[] before = requests.segments(processor);
            SegmentRequests.Refusal refusal = SegmentRequests.refusal(action, number, before);
            if (refusal != null && refusal.unknown()) {
                throw new ApiProblemException(HttpStatus.NOT_FOUND, "not-found", "Unknown processor or segment",
                        "No segment " + number + " of processor " + TextLimits.excerpt(processor) + ": "
                                + refusal.detail());
            }
            if (refusal != null) {
                throw new ApiProblemException(HttpStatus.CONFLICT, "no-sibling", "Nothing to merge with",
                        refusal.detail());
            }
            long recorded = requests.record(processor, number, action, before, caller.actor(), reason).orElseThrow(
                    () -> new ApiProblemException(HttpStatus.CONFLICT, "request-pending", "A request is pending",
                            "Processor " + processor + " has a segment request pending: wait until it is done or "
                                    + "failed (GET /api/v1/admin/segment-requests)"));
            audit.record(caller, "segments." + action, "processor:" + processor + "/segment:" + number, reason,
                    "request=" + recorded + " segments=" + java.util.Arrays.toString(before));
            return recorded;
        });
        return ResponseEntity.accepted().location(URI.create("/api/v1/admin/segment-requests/" + id))
                .body(requests.find(id).orElseThrow());
    }

    private static void requireAdmin(Caller caller) {
        if (!caller.has(Caller.Role.ADMIN)) {
            throw new ApiProblemException(HttpStatus.FORBIDDEN, "forbidden", "Administrators only",
                    "This action needs an admin API key");
        }
    }
}
