package io.durablecheckout.orchestrator.retention;

import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.FixedDelay;
import org.axonframework.serialization.Serializer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import java.time.Clock;

/**
 * The archiver on every orchestrator node with the JDBC event store; its recurring task only with
 * {@code checkout.retention.enabled=true} (db-scheduler runs it on one node at a time).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("${checkout.orchestrator.enabled:true} and !${axon.axonserver.enabled:false}")
public class RetentionConfiguration {

    /** The task's name in {@code scheduled_tasks}. */
    public static final String TASK = "checkout-retention";

    @Bean
    EventArchiver eventArchiver(JdbcTemplate jdbc, TransactionTemplate transactions, Serializer serializer,
                                RetentionProperties settings) {
        return new EventArchiver(jdbc, transactions, serializer, settings);
    }

    @Bean
    @org.springframework.boot.autoconfigure.condition.ConditionalOnProperty(name = "checkout.retention.enabled",
            havingValue = "true")
    RecurringTask<Void> retentionTask(EventArchiver archiver, RetentionProperties settings, Clock clock) {
        return Tasks.recurring(TASK, FixedDelay.of(settings.interval()))
                .execute((instance, context) -> archiver.archive(clock.instant()));
    }
}
