package io.durablecheckout.orchestrator.dashboard;

import io.durablecheckout.orchestrator.tenancy.Caller;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.orchestrator.web.OperatorController;
import jakarta.annotation.PreDestroy;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bulk retry or cancel on a list filter. The ids and versions are taken once, when the operator confirms; each
 * checkout is then sent through the operator API one by one, with the version it had then (If-Match), so one that
 * moved in between is refused (412) and counted as skipped rather than acted on blindly. Jobs live in memory: the
 * durable record of each action is the checkout's own history (who, why, when on every event).
 */
@Component
@org.springframework.boot.autoconfigure.condition.ConditionalOnProperty(name = "checkout.orchestrator.enabled",
        havingValue = "true", matchIfMissing = true) // it repairs through OperatorController, an orchestrator role bean
public class BulkRepairs {

    private final OperatorController operator;
    private final Clock clock;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "dashboard-bulk");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Job> jobs = new ConcurrentHashMap<>();

    public BulkRepairs(OperatorController operator, Clock clock) {
        this.operator = operator;
        this.clock = clock;
    }

    public static final class Job {
        public final String id;
        public final String action;
        public final String actor;
        public final String reason;
        public final int total;
        public final Instant startedAt;
        public final AtomicInteger done = new AtomicInteger();
        public final AtomicInteger skipped = new AtomicInteger();
        public final AtomicInteger failed = new AtomicInteger();
        public final List<String> problems = new java.util.concurrent.CopyOnWriteArrayList<>();
        public volatile boolean finished;

        Job(String action, String actor, String reason, int total, Instant startedAt) {
            this.id = UUID.randomUUID().toString();
            this.action = action;
            this.actor = actor;
            this.reason = reason;
            this.total = total;
            this.startedAt = startedAt;
        }
    }

    public Job start(Caller caller, String action, String reason, List<Map.Entry<String, Long>> targets) {
        Job job = new Job(action, caller.tenantId(), reason, targets.size(), clock.instant());
        jobs.put(job.id, job);
        worker.submit(() -> {
            for (Map.Entry<String, Long> t : targets) {
                String ifMatch = "\"" + t.getValue() + "\"";
                try {
                    OperatorController.ActionRequest body = new OperatorController.ActionRequest(reason);
                    if ("retry".equals(action)) {
                        operator.retry(caller, t.getKey(), ifMatch, body);
                    } else {
                        operator.cancel(caller, t.getKey(), ifMatch, body);
                    }
                    job.done.incrementAndGet();
                } catch (ApiProblemException e) {
                    boolean moved = e.status() == HttpStatus.PRECONDITION_FAILED || e.status() == HttpStatus.CONFLICT;
                    (moved ? job.skipped : job.failed).incrementAndGet();
                    note(job, t.getKey() + ": " + e.getMessage());
                } catch (RuntimeException e) {
                    // a refused transition arrives wrapped by the command gateway: the checkout moved on, skip it
                    job.skipped.incrementAndGet();
                    note(job, t.getKey() + ": " + e.getMessage());
                }
            }
            job.finished = true;
        });
        return job;
    }

    private static void note(Job job, String problem) {
        if (job.problems.size() < 20) {
            job.problems.add(problem);
        }
    }

    public Job job(String id) {
        Job job = jobs.get(id);
        if (job == null) {
            throw new ApiProblemException(HttpStatus.NOT_FOUND, "not-found", "No such bulk job",
                    "No bulk job " + id + " on this node");
        }
        return job;
    }

    @PreDestroy
    void stop() {
        worker.shutdownNow();
    }
}
