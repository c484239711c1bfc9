package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.checkout.ActivityLeaseDeferredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseExpiredEvent;
import io.durablecheckout.api.checkout.ActivityLeaseRenewedEvent;
import io.durablecheckout.api.checkout.ActivityResultRejectedEvent;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.ManualReviewRequiredEvent;
import io.durablecheckout.api.command.RenewLeaseCommand;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.checkout.Deadlines.LeaseExpiry;
import io.durablecheckout.orchestrator.checkout.Deadlines.RetryDue;
import io.durablecheckout.orchestrator.checkout.Run.Status;
import org.axonframework.commandhandling.CommandHandler;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.deadline.annotation.DeadlineHandler;
import org.axonframework.eventhandling.Timestamp;
import org.axonframework.messaging.MetaData;

import java.time.Instant;

import static org.axonframework.modelling.command.AggregateLifecycle.apply;

/**
 * The checkout as fencing authority, the same for every step: it grants leases (operation id derived from the step,
 * next attempt, next fencing token, expiry as a durable deadline in the same unit of work as the intent), renews
 * them on the owner's heartbeat, and when one expires or an attempt fails, issues the step again under the same
 * operation id, until the attempts are used up and the step is blocked in manual review. Which step comes next is
 * not its business: that is the {@link Workflow} table, followed by {@link Checkout}.
 */
abstract class CheckoutLeases extends RecordedCheckout {

    /**
     * A heartbeat from the owner of the current lease extends it (new expiry, new deadline). From anyone else it is
     * recorded as rejected: an expired lease is not revived, a newer owner is not displaced.
     */
    @CommandHandler
    public void handle(RenewLeaseCommand cmd, DeadlineManager deadlines) {
        ActivityHeartbeatEvent beat = cmd.heartbeat();
        Run run = runs.get(beat.step());
        FencingToken current = run == null ? null : run.lease.fencingToken();
        if (run != null && !run.inFlight() && beat.fencingToken().equals(current)
                && run.lease.operationId().equals(beat.operationId())) {
            return; // the owner's heartbeat overtaken by its own result: nothing to renew, nobody stale
        }
        if (run == null || !run.inFlight() || !run.lease.operationId().equals(beat.operationId())
                || !beat.fencingToken().equals(current)) {
            apply(new ActivityResultRejectedEvent(checkoutId, beat.step(), beat.operationId(), beat.fencingToken(),
                    current));
            return;
        }
        Instant expiresAt = cmd.observedAt().plus(policy.leaseFor(beat.step()));
        if (!expiresAt.isAfter(run.lease.expiresAt())) {
            if (run.claimed) {
                return; // an old heartbeat delivered late: the lease already reaches further
            }
            expiresAt = run.lease.expiresAt(); // the first word from the owner: recorded, so the lease now runs
        }
        if (run.leaseDeadlineId != null) {
            deadlines.cancelSchedule(Deadlines.LEASE_EXPIRED, run.leaseDeadlineId);
        }
        Lease renewed = run.leaseUntil(expiresAt);
        apply(new ActivityLeaseRenewedEvent(checkoutId, beat.step(), renewed),
                leaseDeadline(beat.step(), renewed, deadlines));
    }

    @DeadlineHandler(deadlineName = Deadlines.LEASE_EXPIRED)
    public void onLeaseExpired(LeaseExpiry expiry, @Timestamp Instant dueAt, DeadlineManager deadlines) {
        Run run = runs.get(expiry.step());
        if (run == null || !run.inFlight() || !run.lease.fencingToken().equals(expiry.fencingToken())) {
            return; // the result arrived, or a newer lease is in force
        }
        if (!run.claimed && run.deferrals == 0) {
            // Rule: a lease runs while an owner holds it. No worker has said it holds this one (a worker that works
            // long, or is stuck, sends a heartbeat), so the intent, or its result, still waits in a queue: re-issuing
            // it would only queue a second copy. Deferred once, for the rest of max-attempts leases; if still nobody
            // has claimed it by then, the intent is presumed lost and re-issued like an expired lease.
            Lease waiting = run.leaseUntil(
                    dueAt.plus(policy.leaseFor(expiry.step()).multipliedBy(Math.max(1, policy.maxAttempts() - 1))));
            apply(new ActivityLeaseDeferredEvent(checkoutId, expiry.step(), waiting),
                    leaseDeadline(expiry.step(), waiting, deadlines));
            return;
        }
        apply(new ActivityLeaseExpiredEvent(checkoutId, expiry.step(), run.lease));
        if (run.failures >= policy.maxAttempts()) {
            apply(new ManualReviewRequiredEvent(checkoutId, expiry.step(),
                    expiry.step().slug() + ": no result within " + run.failures + " leases",
                    "operation " + run.lease.operationId() + ", last attempt " + run.lease.attempt()
                            + " expired at " + run.lease.expiresAt()));
            return;
        }
        issue(expiry.step(), dueAt, deadlines); // same operation id, next token: the old owner is fenced out
    }

    @DeadlineHandler(deadlineName = Deadlines.RETRY_DUE)
    public void onRetryDue(RetryDue due, @Timestamp Instant dueAt, DeadlineManager deadlines) {
        Run run = runs.get(due.step());
        if (run == null || run.status != Status.WAITING_RETRY || !run.lease.fencingToken().equals(due.failedToken())) {
            return;
        }
        if (!due.step().isCompensation() && isCompensatingOrCancelled()) {
            return; // a cancellation took over between attempts (e.g. voided the authorization): never redo the step
        }
        issue(due.step(), dueAt, deadlines);
    }

    void retryOrReview(Step step, Run run, String detail, Instant now, DeadlineManager deadlines) {
        if (run.failures + 1 >= policy.maxAttempts()) {
            apply(new ManualReviewRequiredEvent(checkoutId, step,
                    step.slug() + " failed " + (run.failures + 1) + " times",
                    "operation " + run.lease.operationId() + "; last failure: " + detail));
            return;
        }
        Instant retryAt = now.plus(policy.retryDelay(run.failures + 1));
        deadlines.schedule(retryAt, Deadlines.RETRY_DUE, new RetryDue(step, run.lease.fencingToken()), scope());
        apply(new ActivityRetryScheduledEvent(checkoutId, step, run.lease.operationId(), run.lease.attempt(),
                retryAt, detail));
    }

    /** Grants a lease for {@code step} and sends its request: same operation id as any earlier attempt, next token. */
    void issue(Step step, Instant now, DeadlineManager deadlines) {
        Run previous = runs.get(step);
        int attempt = previous == null ? 1 : previous.lease.attempt() + 1;
        FencingToken token = previous == null ? FencingToken.first() : previous.lease.fencingToken().next();
        Lease lease = new Lease(OperationId.of(checkoutId, step), attempt, token, now.plus(policy.leaseFor(step)));
        apply(Workflow.row(step).build().build(order, scheduledLookup, lease), leaseDeadline(step, lease, deadlines));
    }

    /** Schedules the lease's expiry; the handle travels with the event as metadata, to cancel it later. */
    private MetaData leaseDeadline(Step step, Lease lease, DeadlineManager deadlines) {
        String deadlineId = deadlines.schedule(lease.expiresAt(), Deadlines.LEASE_EXPIRED,
                new LeaseExpiry(step, lease.fencingToken()), scope());
        return MetaData.with(Deadlines.LEASE_DEADLINE_ID, deadlineId);
    }
}
