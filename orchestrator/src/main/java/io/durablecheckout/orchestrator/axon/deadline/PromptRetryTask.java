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

/**
 * A db-scheduler task that runs another one but retries a failed execution after 1 s, 2 s, 4 s … at most
 * {@code maxDelay}, instead of the delegate's own failure handler. Axon's {@code AxonDeadline} task keeps
 * db-scheduler's one-time default, retry in 5 minutes: a lease or retry deadline whose command lost a race (another
 * node appended to the checkout first) would leave the checkout waiting that long. The retry re-runs the deadline
 * against the current history, where the aggregate decides again (an expiry for a lease no longer in force is a no-op).
 */
public final class PromptRetryTask<T> implements Task<T> {

    private final Task<T> delegate;
    private final Duration initialDelay;
    private final Duration maxDelay;

    public PromptRetryTask(Task<T> delegate, Duration initialDelay, Duration maxDelay) {
        this.delegate = delegate;
        this.initialDelay = initialDelay;
        this.maxDelay = maxDelay;
    }

    /** Delay before the next attempt, after {@code previousFailures} failures before this one. */
    public static Duration retryDelay(Duration initial, Duration max, int previousFailures) {
        Duration d = initial;
        for (int i = 0; i < previousFailures && d.compareTo(max) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(max) > 0 ? max : d;
    }

    @Override
    public FailureHandler<T> getFailureHandler() {
        return (ExecutionComplete complete, ExecutionOperations<T> operations) -> operations.reschedule(complete,
                complete.getTimeDone().plus(retryDelay(initialDelay, maxDelay,
                        complete.getExecution().consecutiveFailures)));
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
