package io.durablecheckout.orchestrator.web;

import io.durablecheckout.orchestrator.http.TextLimits;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.orchestrator.deadletter.ParkedEvents;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.List;

/**
 * Poison events parked per processor and checkout (docs/reliability.md, "Poison events"), for operator keys only:
 * list them with their cause, retry a checkout's parked events once the cause is fixed, or evict them.
 */
@RestController
@RequestMapping("/api/v1/operator/dead-letters")
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
public class DeadLetterController {

    private static final int MAX_LIMIT = 500;

    private final ParkedEvents parked;
    private final io.durablecheckout.orchestrator.tenancy.AuditLog audit;

    public DeadLetterController(ParkedEvents parked, io.durablecheckout.orchestrator.tenancy.AuditLog audit) {
        this.parked = parked;
        this.audit = audit;
    }

    public record Page(List<ParkedEvents.Sequence> deadLetters) {
    }

    /**
     * @param handled whether every parked event of the checkout was handled (false: the first failed again and stays
     *                parked, with its new cause in {@code stillParked})
     */
    public record RetryResult(String processor, String checkoutId, boolean handled,
                              List<ParkedEvents.Sequence> stillParked) {
    }

    public record EvictResult(String processor, String checkoutId, int evicted) {
    }

    public record EvictRequest(String reason) {
    }

    @GetMapping
    public Page list(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                     @RequestParam(required = false) String processor,
                     @RequestParam(required = false) String checkoutId,
                     @RequestParam(required = false, defaultValue = "100") String limit) {
        requireOperator(caller);
        if (processor != null) {
            requireProcessor(processor);
        }
        return new Page(parked.list(processor, blankToNull(checkoutId), limit(limit)));
    }

    @PostMapping("/{processor}/{checkoutId}/retry")
    public RetryResult retry(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                             @PathVariable String processor, @PathVariable String checkoutId) {
        requireRepair(caller);
        requireProcessor(processor);
        boolean handled = parked.retry(processor, checkoutId).orElseThrow(() -> nothingParked(processor, checkoutId));
        audit.record(caller, "dead-letter.retry", "checkout:" + checkoutId, "operator retry",
                "processor=" + processor + " handled=" + handled);
        return new RetryResult(processor, checkoutId, handled, parked.list(processor, checkoutId, 1));
    }

    /** Evicting gives the events up for good: the request says why, and the answer says how many. */
    @DeleteMapping("/{processor}/{checkoutId}")
    public EvictResult evict(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                             @PathVariable String processor, @PathVariable String checkoutId,
                             @RequestBody(required = false) EvictRequest body) {
        requireRepair(caller);
        requireProcessor(processor);
        if (body == null || body.reason() == null || body.reason().isBlank()) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid operator action",
                    "reason: required, why these events are given up (they will never be handled)");
        }
        java.util.List<String> errors = new java.util.ArrayList<>();
        String reason = TextLimits.reason(body.reason(), errors);
        if (!errors.isEmpty()) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid operator action",
                    errors.get(0), errors);
        }
        if (parked.list(processor, checkoutId, 1).isEmpty()) {
            throw nothingParked(processor, checkoutId);
        }
        int evicted = parked.evict(processor, checkoutId);
        audit.record(caller, "dead-letter.evict", "checkout:" + checkoutId, reason,
                "processor=" + processor + " evicted=" + evicted);
        return new EvictResult(processor, checkoutId, evicted);
    }

    private void requireProcessor(String processor) {
        if (!parked.processors().contains(processor)) {
            throw new ApiProblemException(HttpStatus.NOT_FOUND, "unknown-processor", "Unknown processor",
                    "No dead-letter queue named '" + processor + "'; there are " + parked.processors());
        }
    }

    private static ApiProblemException nothingParked(String processor, String checkoutId) {
        return new ApiProblemException(HttpStatus.NOT_FOUND, "nothing-parked", "Nothing parked",
                "No event of checkout " + checkoutId + " is parked in " + processor);
    }

    private static int limit(String limit) {
        try {
            int n = Integer.parseInt(limit.trim());
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid limit",
                "limit: a number from 1 to " + MAX_LIMIT + ", was '" + limit + "'");
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /** Retrying and evicting change what happens to a checkout: the repair role, as for the other repairs. */
    private static void requireRepair(Caller caller) {
        if (!caller.has(Caller.Role.OPERATOR_REPAIR)) {
            throw new ApiProblemException(HttpStatus.FORBIDDEN, "forbidden", "Operators only",
                    "This action needs an operator key with the repair role");
        }
    }

    private static void requireOperator(Caller caller) {
        if (!caller.isOperator()) {
            throw new ApiProblemException(HttpStatus.FORBIDDEN, "forbidden", "Operators only",
                    "This action needs an operator API key");
        }
    }
}
