package io.durablecheckout.orchestrator.cluster;

import com.github.kagkarlsson.scheduler.event.ExecutionChain;
import com.github.kagkarlsson.scheduler.event.ExecutionInterceptor;
import com.github.kagkarlsson.scheduler.task.CompletionHandler;
import com.github.kagkarlsson.scheduler.task.ExecutionContext;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import org.axonframework.deadline.DeadlineManager;
import org.axonframework.deadline.DeadlineMessage;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Lazy;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Counts deadline executions where they take effect: a row in {@code deadline_executions} (V70) written inside the
 * deadline handler's own transaction, so it exists exactly when the handler's decision was committed. The db-scheduler
 * task instance (one per scheduled deadline) comes from an execution interceptor running on the same thread. "Each
 * deadline fires once cluster-wide" is then: no task instance has two rows (ScaleOutIT). Off by default
 * ({@code checkout.deadlines.execution-log}): one row per deadline forever is an audit a deployment may not want.
 */
final class DeadlineExecutionLog implements ExecutionInterceptor, SmartInitializingSingleton {

    private static final ThreadLocal<String> TASK_INSTANCE = new ThreadLocal<>();

    private final JdbcTemplate jdbc;
    private final String node;
    private DeadlineManager deadlines;

    public DeadlineExecutionLog(JdbcTemplate jdbc, String node) {
        this.jdbc = jdbc;
        this.node = node;
    }

    @Autowired
    void setDeadlineManager(@Lazy DeadlineManager deadlines) {
        this.deadlines = deadlines;
    }

    @Override
    public CompletionHandler<?> execute(TaskInstance<?> taskInstance, ExecutionContext context, ExecutionChain chain) {
        TASK_INSTANCE.set(taskInstance.getTaskName() + "/" + taskInstance.getId());
        try {
            return chain.proceed(taskInstance, context);
        } finally {
            TASK_INSTANCE.remove();
        }
    }

    @Override
    public void afterSingletonsInstantiated() {
        deadlines.registerHandlerInterceptor((unitOfWork, chain) -> {
            Object result = chain.proceed();
            String instance = TASK_INSTANCE.get();
            String name = ((DeadlineMessage<?>) unitOfWork.getMessage()).getDeadlineName();
            // in the handler's transaction: rolled back with it, committed with it
            jdbc.update("INSERT INTO deadline_executions (task_instance, deadline_name, node_id) VALUES (?, ?, ?)",
                    instance == null ? "unknown/" + unitOfWork.getMessage().getIdentifier() : instance, name, node);
            return result;
        });
    }
}
