package io.durablecheckout.orchestrator.axon.deadline;

import com.github.kagkarlsson.scheduler.task.CompletionHandler;
import com.github.kagkarlsson.scheduler.task.DeadExecutionHandler;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.ExecutionContext;
import com.github.kagkarlsson.scheduler.task.ExecutionOperations;
import com.github.kagkarlsson.scheduler.task.FailureHandler;
import com.github.kagkarlsson.scheduler.task.SchedulableInstance;
import com.github.kagkarlsson.scheduler.task.Task;
import com.github.kagkarlsson.scheduler.task.TaskInstance;

import java.time.Duration;
import java.util.function.IntFunction;

/**
 * A db-scheduler task that runs another one but retries a failed execution after the delay the given back-off says
 * for its consecutive failures (the product's: 1 s, 2 s, 4 s … at most 30 s), instead of the delegate's own failure
 * handler. Axon's {@code AxonDeadline} task keeps
 * db-scheduler's one-time default, retry in 5 minutes: a lease or retry deadline whose command lost a race (another
 * node appended to the checkout first) would leave the checkout waiting that long. The retry re-runs the deadline
 * against the current history, where the aggregate decides again (an expiry for a lease no longer in force is a no-op).
 */
public final class PromptRetryTask<T> implements Task<T> {

    private final Task<T> delegate;
    private final IntFunction<Duration> delayAfterFailures;

    /** @param delayAfterFailures the delay before the next attempt, given the failures in a row so far (1, 2, …) */
    public PromptRetryTask(Task<T> delegate, IntFunction<Duration> delayAfterFailures) {
        this.delegate = delegate;
        this.delayAfterFailures = delayAfterFailures;
    }

    @Override
    public FailureHandler<T> getFailureHandler() {
        return (ExecutionComplete complete, ExecutionOperations<T> operations) -> operations.reschedule(complete,
                complete.getTimeDone().plus(delayAfterFailures.apply(complete.getExecution().consecutiveFailures + 1)));
    }

    @Override
    public CompletionHandler<T> execute(TaskInstance<T> taskInstance, ExecutionContext executionContext) {
        return delegate.execute(taskInstance, executionContext);
    }

    @Override
    public String getName() {
        return delegate.getName();
    }

    @Override
    public Class<T> getDataClass() {
        return delegate.getDataClass();
    }

    @Override
    public TaskInstance<T> instance(String id) {
        return delegate.instance(id);
    }

    @Override
    public TaskInstance<T> instance(String id, T data) {
        return delegate.instance(id, data);
    }

    @Override
    public TaskInstance.Builder<T> instanceBuilder(String id) {
        return delegate.instanceBuilder(id);
    }

    @Override
    public SchedulableInstance<T> schedulableInstance(String id) {
        return delegate.schedulableInstance(id);
    }

    @Override
    public SchedulableInstance<T> schedulableInstance(String id, T data) {
        return delegate.schedulableInstance(id, data);
    }

    @Override
    public DeadExecutionHandler<T> getDeadExecutionHandler() {
        return delegate.getDeadExecutionHandler();
    }

    @Override
    public int getDefaultPriority() {
        return delegate.getDefaultPriority();
    }
}
