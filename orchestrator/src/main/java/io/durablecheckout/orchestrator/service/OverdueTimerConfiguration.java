package io.durablecheckout.orchestrator.service;

import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.FixedDelay;
import io.micrometer.core.instrument.MeterRegistry;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import java.time.Clock;
import java.time.Duration;

/**
 * The timer watchdog on orchestrator nodes, as a db-scheduler recurring task (one node at a time), every
 * {@code checkout.deadlines.watchdog-interval} (30 s; 0: off) for checkouts more than
 * {@code checkout.deadlines.watchdog-grace} (60 s) past their next deadline.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("${checkout.orchestrator.enabled:true} and ${db-scheduler.enabled:true}"
        + " and '${checkout.deadlines.watchdog-interval:30s}' != '0' and '${checkout.deadlines.watchdog-interval:30s}' != '0s'")
public class OverdueTimerConfiguration {

    /** The task's name in {@code scheduled_tasks}. */
    public static final String TASK = "checkout-timer-watchdog";

    @Bean
    OverdueTimerWatchdog overdueTimerWatchdog(JdbcTemplate jdbc, CommandGateway commands, MeterRegistry meters,
            @Value("${checkout.deadlines.watchdog-grace:60s}") Duration grace) {
        return new OverdueTimerWatchdog(jdbc, commands, grace, 100, meters);
    }

    @Bean
    RecurringTask<Void> overdueTimerTask(OverdueTimerWatchdog watchdog, Clock clock,
            @Value("${checkout.deadlines.watchdog-interval:30s}") Duration interval) {
        return Tasks.recurring(TASK, FixedDelay.of(interval)).execute((instance, context) -> watchdog.sweep(clock.instant()));
    }
}
