package io.durablecheckout.orchestrator.dashboard;

import io.durablecheckout.api.checkout.CancellationReason;
import io.durablecheckout.api.checkout.ManualResolution;
import io.durablecheckout.api.command.RequestCancellationCommand;
import io.durablecheckout.api.command.ResolveManualReviewCommand;
import io.durablecheckout.api.command.RetryActivityCommand;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.orchestrator.checkout.OperatorMetadata;
import io.durablecheckout.orchestrator.readmodel.CheckoutView;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.orchestrator.deadletter.ParkedEvents;
import io.durablecheckout.orchestrator.service.CheckoutService;
import io.durablecheckout.orchestrator.web.DeadLetterController;
import io.durablecheckout.orchestrator.web.ReplayController;
import io.durablecheckout.orchestrator.web.OperatorController;
import jakarta.servlet.http.HttpServletRequest;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.messaging.MetaData;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The JSON behind /dashboard, for signed-in operators (session cookie; CSRF token on every POST). Repairs go through
 * {@link OperatorController}, the same code path as the operator API, so the rules (If-Match version, reason, who and
 * why recorded on the events) are the API's.
 */
@RestController
@RequestMapping("/dashboard/api")
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
public class DashboardApiController {

    private static final Set<String> ACTIONS = Set.of("resolve", "retry", "cancel", "refund", "capture-hold",
            "release-hold");
    /** States a cancellation still changes something in (elsewhere it is acknowledged and does nothing). */
    private static final Set<String> CANCELLABLE = Set.of("created", "stock_reserved", "payment_authorized",
            "payment_unknown", "reconciliation_pending", "confirmed", "completed", "manual_review");

    private final DashboardAccess access;
    private final DashboardQueries queries;
    private final CheckoutInspector inspector;
    private final RepairPreview previews;
    private final BulkRepairs bulk;
    private final ProcessorsView processors;
    private final OperatorController operator;
    private final CheckoutService checkouts;
    private final DashboardProperties properties;
    private final Clock clock;
    private final DeadLetterController deadLetters;
    private final ParkedEvents parked;
    private final ReplayController replays;

    public DashboardApiController(DashboardAccess access, DashboardQueries queries, CheckoutInspector inspector,
                                  RepairPreview previews, BulkRepairs bulk, ProcessorsView processors,
                                  OperatorController operator, CheckoutService checkouts,
                                  DashboardProperties properties, Clock clock, DeadLetterController deadLetters,
                                  ParkedEvents parked, ReplayController replays) {
        this.replays = replays;
        this.deadLetters = deadLetters;
        this.parked = parked;
        this.access = access;
        this.queries = queries;
        this.inspector = inspector;
        this.previews = previews;
        this.bulk = bulk;
        this.processors = processors;
        this.operator = operator;
        this.checkouts = checkouts;
        this.properties = properties;
        this.clock = clock;
    }

    /** Who is signed in, and the CSRF token the page sends with every POST. */
    @GetMapping("/me")
    public Map<String, Object> me(HttpServletRequest request) {
        DashboardAccess.Operator who = access.reader(request);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", who.name());
        out.put("keyId", who.caller().keyId());
        out.put("canRepair", who.canRepair());
        if (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken csrf) {
            out.put("csrf", Map.of("headerName", csrf.getHeaderName(), "parameterName", csrf.getParameterName(),
                    "token", csrf.getToken()));
        }
        return out;
    }

    @GetMapping("/checkouts")
    public DashboardQueries.Page list(HttpServletRequest request,
                                      @RequestParam(required = false) String state,
                                      @RequestParam(required = false) String tenant,
                                      @RequestParam(required = false) Boolean stuck,
                                      @RequestParam(required = false) Boolean retrying,
                                      @RequestParam(required = false) Boolean paymentUnknown,
                                      @RequestParam(required = false) Boolean waiting,
                                      @RequestParam(required = false) String from,
                                      @RequestParam(required = false) String to,
                                      @RequestParam(required = false) String q,
                                      @RequestParam(required = false) String cursor,
                                      @RequestParam(defaultValue = "50") int limit) {
        access.reader(request);
        if (limit < 1 || limit > 500) {
            throw invalid("limit must be between 1 and 500");
        }
        return queries.list(CheckoutFilter.of(state, tenant, stuck, retrying, paymentUnknown, waiting, from, to, q),
                cursor, limit);
    }

    @GetMapping("/counts")
    public Map<String, Object> counts(HttpServletRequest request, @RequestParam(required = false) String tenant) {
        access.reader(request);
        return queries.counts(tenant == null || tenant.isBlank() ? null : tenant);
    }

    @GetMapping("/money-at-risk")
    public Map<String, Object> moneyAtRisk(HttpServletRequest request, @RequestParam(required = false) String tenant) {
        access.reader(request);
        return queries.moneyAtRisk(tenant == null || tenant.isBlank() ? null : tenant);
    }

    @GetMapping("/checkouts/{checkoutId}")
    public Map<String, Object> checkout(HttpServletRequest request, @PathVariable String checkoutId) {
        DashboardAccess.Operator who = access.reader(request);
        Map<String, Object> out = inspector.inspect(who.caller(), checkoutId).orElseThrow(() -> notFound(checkoutId));
        out.put("thresholds", Presentation.human(properties.thresholds()));
        out.put("deadLetters", parked.forCheckouts(List.of(checkoutId)).values().stream().flatMap(List::stream).toList());
        return out;
    }

    @GetMapping("/checkouts/{checkoutId}/provider")
    public Map<String, Object> provider(HttpServletRequest request, @PathVariable String checkoutId) {
        DashboardAccess.Operator who = access.reader(request);
        CheckoutView view = checkouts.find(who.caller(), checkoutId).orElseThrow(() -> notFound(checkoutId));
        return inspector.providerView(view);
    }

    /** The replay verdict of this checkout's history with today's code (ReplayController, docs/replay.md). */
    @GetMapping("/checkouts/{checkoutId}/replay")
    public Map<String, Object> replay(HttpServletRequest request, @PathVariable String checkoutId) {
        return replays.replay(access.reader(request).caller(), checkoutId);
    }

    /** The checkout's history bundle (personal fields redacted), as a download. */
    @GetMapping("/checkouts/{checkoutId}/bundle")
    public ResponseEntity<byte[]> bundle(HttpServletRequest request, @PathVariable String checkoutId) throws Exception {
        return replays.bundle(access.reader(request).caller(), checkoutId);
    }

    /** What an action sent to the operator API. {@code version}: the one the operator looked at (If-Match). */
    public record ActionBody(String action, Long version, String resolution, String providerReference, String reason,
                             io.durablecheckout.orchestrator.service.CheckoutRequest.Amount amount) {
    }

    /** The action run against the aggregate and thrown away: what it would issue, or the rule that refuses it. */
    @PostMapping("/checkouts/{checkoutId}/preview")
    public Map<String, Object> preview(HttpServletRequest request, @PathVariable String checkoutId,
                                       @RequestBody(required = false) ActionBody body) {
        DashboardAccess.Operator who = access.repairer(request);
        CheckoutView view = checkouts.find(who.caller(), checkoutId).orElseThrow(() -> notFound(checkoutId));
        String action = action(body);
        String reason = body.reason() == null || body.reason().isBlank() ? "(preview)" : body.reason();
        long version = body.version() == null ? view.version : body.version();
        Instant now = clock.instant();
        CheckoutId id = new CheckoutId(checkoutId);
        Object command = switch (action) {
            case "resolve" -> new ResolveManualReviewCommand(id, resolution(body), body.providerReference(), reason,
                    version, now);
            case "retry" -> new RetryActivityCommand(id, version, now);
            case "refund" -> new io.durablecheckout.api.command.RefundPaymentCommand(id,
                    OperatorController.refundAmount(body.amount()), version, now);
            case "capture-hold" -> new io.durablecheckout.api.command.SettleHoldCommand(id, true, version, now);
            case "release-hold" -> new io.durablecheckout.api.command.SettleHoldCommand(id, false, version, now);
            default -> new RequestCancellationCommand(id, CancellationReason.OPERATOR_REQUEST, reason, version, now);
        };
        RepairPreview.Preview p = previews.dryRun(GenericCommandMessage.asCommandMessage(command).andMetaData(
                MetaData.with(OperatorMetadata.ACTOR, "operator:" + who.caller().tenantId())
                        .and(OperatorMetadata.REASON, reason)
                        .and(OperatorMetadata.ACTED_AT, now.toString())));
        Map<String, Object> out = new LinkedHashMap<>(RepairPreview.describe(p));
        out.put("action", action);
        out.put("version", version);
        out.put("state", view.state);
        return out;
    }

    /** The action itself, through the operator API (If-Match = the version the preview was taken on). */
    @PostMapping("/checkouts/{checkoutId}/actions")
    public ResponseEntity<CheckoutView> act(HttpServletRequest request, @PathVariable String checkoutId,
                                            @RequestBody(required = false) ActionBody body) {
        DashboardAccess.Operator who = access.repairer(request);
        String action = action(body);
        if (body.version() == null) {
            throw invalid("version: required, the checkout version the action was decided on");
        }
        String ifMatch = "\"" + body.version() + "\"";
        return switch (action) {
            case "resolve" -> operator.resolve(who.caller(), checkoutId, ifMatch,
                    new OperatorController.ResolveRequest(body.resolution(), body.providerReference(), body.reason()));
            case "retry" -> operator.retry(who.caller(), checkoutId, ifMatch,
                    new OperatorController.ActionRequest(body.reason()));
            case "refund" -> operator.refund(who.caller(), checkoutId, ifMatch,
                    new OperatorController.RefundRequest(body.amount(), body.reason()));
            case "capture-hold" -> operator.captureHold(who.caller(), checkoutId, ifMatch,
                    new OperatorController.ActionRequest(body.reason()));
            case "release-hold" -> operator.releaseHold(who.caller(), checkoutId, ifMatch,
                    new OperatorController.ActionRequest(body.reason()));
            default -> operator.cancel(who.caller(), checkoutId, ifMatch,
                    new OperatorController.ActionRequest(body.reason()));
        };
    }

    /** A bulk action on the list's current filter: the filter's fields plus {@code action} and {@code reason}. */
    public record BulkBody(String action, String reason, String state, String tenant, Boolean stuck, Boolean retrying,
                           Boolean paymentUnknown, Boolean waiting, String from, String to, String q,
                           Integer expectedCount) {
        CheckoutFilter filter() {
            return CheckoutFilter.of(state, tenant, stuck, retrying, paymentUnknown, waiting, from, to, q);
        }
    }

    @PostMapping("/bulk/preview")
    public Map<String, Object> bulkPreview(HttpServletRequest request, @RequestBody(required = false) BulkBody body) {
        access.repairer(request);
        String action = bulkAction(body);
        Map<String, Long> byState = queries.countByState(body.filter());
        long eligible = byState.entrySet().stream().filter(e -> eligible(action, e.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("action", action);
        out.put("matching", byState.values().stream().mapToLong(Long::longValue).sum());
        out.put("byState", byState);
        out.put("eligible", eligible);
        out.put("limit", properties.bulkLimit());
        out.put("willActOn", Math.min(eligible, properties.bulkLimit()));
        return out;
    }

    @PostMapping("/bulk")
    public ResponseEntity<Map<String, Object>> bulkStart(HttpServletRequest request,
                                                         @RequestBody(required = false) BulkBody body) {
        DashboardAccess.Operator who = access.repairer(request);
        String action = bulkAction(body);
        if (body.reason() == null || body.reason().isBlank()) {
            throw invalid("reason: required, why the operator acts (recorded with each action)");
        }
        CheckoutFilter filter = body.filter();
        String onlyState = "retry".equals(action) ? "manual_review" : filter.state();
        if ("retry".equals(action) && filter.state() != null && !"manual_review".equals(filter.state())) {
            throw invalid("retry acts on checkouts in manual_review only; the filter's state is " + filter.state());
        }
        CheckoutFilter target = new CheckoutFilter(onlyState, filter.tenant(), filter.stuck(), filter.retrying(),
                filter.paymentUnknown(), filter.waiting(), filter.from(), filter.to(), filter.q());
        List<Map.Entry<String, Long>> ids = queries.ids(target, properties.bulkLimit(),
                "retry".equals(action) ? Set.of("manual_review") : CANCELLABLE);
        if (body.expectedCount() != null && body.expectedCount() != ids.size()) {
            throw new ApiProblemException(HttpStatus.CONFLICT, "preview-outdated", "The filter's result changed",
                    "The preview counted " + body.expectedCount() + " checkouts, now " + ids.size()
                            + ": preview again before acting");
        }
        BulkRepairs.Job job = bulk.start(who.caller(), action, body.reason(), ids);
        return ResponseEntity.accepted().body(describe(job));
    }

    @GetMapping("/bulk/{jobId}")
    public Map<String, Object> bulkJob(HttpServletRequest request, @PathVariable String jobId) {
        access.reader(request);
        return describe(bulk.job(jobId));
    }

    @GetMapping("/processors")
    public Map<String, Object> processors(HttpServletRequest request) {
        access.reader(request);
        return processors.processors();
    }

    /** Events parked in the dead-letter queues (poison events), through the operator API's own code path. */
    @GetMapping("/dead-letters")
    public Map<String, Object> deadLetters(HttpServletRequest request) {
        DashboardAccess.Operator who = access.reader(request);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("available", true);
        out.put("processors", parked.processors());
        out.put("deadLetters", deadLetters.list(who.caller(), null, null, "100").deadLetters());
        return out;
    }

    public record EvictBody(String reason) {
    }

    @PostMapping("/dead-letters/{processor}/{checkoutId}/retry")
    public DeadLetterController.RetryResult retryDeadLetters(HttpServletRequest request, @PathVariable String processor,
                                                             @PathVariable String checkoutId) {
        return deadLetters.retry(access.repairer(request).caller(), processor, checkoutId);
    }

    @PostMapping("/dead-letters/{processor}/{checkoutId}/evict")
    public DeadLetterController.EvictResult evictDeadLetters(HttpServletRequest request, @PathVariable String processor,
                                                             @PathVariable String checkoutId,
                                                             @RequestBody(required = false) EvictBody body) {
        return deadLetters.evict(access.repairer(request).caller(), processor, checkoutId,
                new DeadLetterController.EvictRequest(body == null ? null : body.reason()));
    }

    private static boolean eligible(String action, String state) {
        return "retry".equals(action) ? "manual_review".equals(state) : CANCELLABLE.contains(state);
    }

    private static Map<String, Object> describe(BulkRepairs.Job job) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jobId", job.id);
        m.put("action", job.action);
        m.put("actor", job.actor);
        m.put("reason", job.reason);
        m.put("total", job.total);
        m.put("done", job.done.get());
        m.put("skipped", job.skipped.get());
        m.put("failed", job.failed.get());
        m.put("finished", job.finished);
        m.put("problems", List.copyOf(job.problems));
        m.put("startedAt", job.startedAt.toString());
        return m;
    }

    private static String action(ActionBody body) {
        if (body == null || body.action() == null || !ACTIONS.contains(body.action())) {
            throw invalid("action: required, one of resolve, retry, cancel, refund, capture-hold, release-hold");
        }
        return body.action();
    }

    private static String bulkAction(BulkBody body) {
        if (body == null || body.action() == null || !Set.of("retry", "cancel").contains(body.action())) {
            throw invalid("action: required, retry or cancel");
        }
        return body.action();
    }

    private static ManualResolution resolution(ActionBody body) {
        if (body.resolution() == null) {
            throw invalid("resolution: required, 'authorized' or 'declined'");
        }
        try {
            return ManualResolution.valueOf(body.resolution().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw invalid("resolution: 'authorized' or 'declined', was '" + body.resolution() + "'");
        }
    }

    private static ApiProblemException invalid(String error) {
        return new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid dashboard request", error);
    }

    private static ApiProblemException notFound(String id) {
        return new ApiProblemException(HttpStatus.NOT_FOUND, "not-found", "No such checkout", "No checkout " + id);
    }
}
