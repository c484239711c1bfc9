package io.durablecheckout.orchestrator.axon.deadline;

import com.github.kagkarlsson.scheduler.event.ExecutionChain;
import com.github.kagkarlsson.scheduler.event.ExecutionInterceptor;
import com.github.kagkarlsson.scheduler.task.CompletionHandler;
import com.github.kagkarlsson.scheduler.task.ExecutionContext;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.axonframework.deadline.dbscheduler.DbSchedulerBinaryDeadlineDetails;

import java.time.Clock;
import java.time.Duration;

/**
 * {@code checkout.deadline.lag}: how late a scheduled execution started after it was due, tagged with the deadline's
 * name. Measured where both times are known: db-scheduler's execution carries its due time. (An Axon handler
 * interceptor cannot: the db-scheduler deadline manager rebuilds the deadline message when it fires, stamped with the
 * firing time, so a lag taken from it reads zero.)
 */
public final class DeadlineLagInterceptor implements ExecutionInterceptor {

    private final MeterRegistry meters;
    private final Clock clock;

    public DeadlineLagInterceptor(MeterRegistry meters, Clock clock) {
        this.meters = meters;
        this.clock = clock;
        // every deadline's series exists from the start, at zero (a dashboard tells "none fired" from "not counted")
        for (String deadline : java.util.List.of(io.durablecheckout.orchestrator.checkout.Deadlines.LEASE_EXPIRED,
                io.durablecheckout.orchestrator.checkout.Deadlines.RETRY_DUE,
                io.durablecheckout.orchestrator.checkout.Deadlines.RECONCILIATION_DUE)) {
            lag(deadline);
        }
    }

    private Timer lag(String deadline) {
        return Timer.builder("checkout.deadline.lag").tag("deadline", deadline).publishPercentiles(0.5, 0.95, 0.99)
                .register(meters);
    }

    @Override
    public CompletionHandler<?> execute(TaskInstance<?> taskInstance, ExecutionContext context, ExecutionChain chain) {
        String name = taskInstance.getData() instanceof DbSchedulerBinaryDeadlineDetails details
                ? details.getD() : taskInstance.getTaskName();
        lag(name).record(Duration.between(context.getExecution().executionTime, clock.instant()));
        return chain.proceed(taskInstance, context);
    }
}
