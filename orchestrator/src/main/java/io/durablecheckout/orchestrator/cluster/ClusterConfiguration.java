package io.durablecheckout.orchestrator.cluster;

import org.axonframework.commandhandling.CommandBus;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.axonframework.commandhandling.gateway.DefaultCommandGateway;
import org.axonframework.commandhandling.gateway.ExponentialBackOffIntervalRetryScheduler;
import org.axonframework.commandhandling.gateway.RetryScheduler;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.modelling.command.ConcurrencyException;
import org.axonframework.modelling.command.ConflictingModificationException;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What several nodes on one PostgreSQL need beyond one node (docs/scaling.md): commands that lost an append race to
 * another node are retried, and (when switched on) every deadline execution is logged so a test can count them.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({ClusterProperties.class, ClusterProperties.CommandRetries.class})
public class ClusterConfiguration {

    /**
     * Two nodes handling a command for the same checkout at once both load version n and both append n+1; the unique
     * (aggregate, sequence) index lets one commit and the other fail with a {@link ConcurrencyException}. That command
     * is simply re-run (it reloads the checkout, now including the winner's events, and decides again). Only that
     * failure is retried: a stale If-Match version ({@link ConflictingModificationException}), a domain refusal or a
     * broken database is answered at once.
     */
    @Bean(destroyMethod = "shutdown")
    @Qualifier("commandRetries")
    public ScheduledExecutorService commandRetryExecutor() {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "command-retry");
            t.setDaemon(true);
            return t;
        });
    }

    @Bean
    public RetryScheduler commandRetryScheduler(@Qualifier("commandRetries") ScheduledExecutorService executor,
                                                ClusterProperties.CommandRetries retries) {
        return new AppendConflictRetryScheduler(ExponentialBackOffIntervalRetryScheduler.builder()
                .retryExecutor(executor)
                .backoffFactor(retries.conflictRetryBackoffMs())
                .maxRetryCount(retries.conflictRetries()));
    }

    /**
     * Axon's scheduler asks its non-transient predicate about the failure and each of its causes separately and gives
     * up if any one says so; a conflict's causes are the driver's SQL exceptions, so the decision is taken here, once,
     * on the whole chain.
     */
    static final class AppendConflictRetryScheduler extends ExponentialBackOffIntervalRetryScheduler {
        AppendConflictRetryScheduler(ExponentialBackOffIntervalRetryScheduler.Builder builder) {
            super(builder);
        }

        @Override
        protected boolean isExplicitlyNonTransient(Throwable failure) {
            return !isAppendConflict(failure);
        }

        /**
         * A command sent inside another unit of work (the saga's batch, a submission) is retried at once on the same
         * thread, inside that unit of work: the failed attempt's aggregate lock is released only when the outer unit of
         * work ends, so a retry on the retry thread waited for it while the sender waited for the retry, until the
         * lock's 60 s timeout (a two-node SIGSTOP row's stale cached copies did this batch after batch). The attempt
         * that failed was thrown away with its cached copy, so the retry decides on the store's events; the lock is
         * reentrant for this thread.
         */
        @Override
        protected boolean scheduleRetry(Runnable commandDispatch, long interval) {
            if (CurrentUnitOfWork.isStarted()) {
                commandDispatch.run();
                return true;
            }
            return super.scheduleRetry(commandDispatch, interval);
        }
    }

    /** Replaces Axon's auto-configured gateway (the same, plus the retry above); the saga's commands use it too. */
    @Bean
    public CommandGateway commandGateway(CommandBus commandBus, RetryScheduler commandRetryScheduler) {
        return DefaultCommandGateway.builder().commandBus(commandBus).retryScheduler(commandRetryScheduler).build();
    }

    /** Lost an append race: a {@link ConcurrencyException} somewhere in the chain that is not a stale If-Match. */
    public static boolean isAppendConflict(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ConflictingModificationException) {
                return false;
            }
            if (t instanceof ConcurrencyException) {
                return true;
            }
        }
        return false;
    }

    /** The name this process's database sessions carry, for the balancer's fencing of a frozen node's sessions. */
    @Bean
    public NodeSession nodeSession(ClusterProperties cluster) {
        return NodeSession.of(cluster);
    }

    /** {@code checkout.deadlines.execution-log=true}: one row per deadline execution that completed (tests, audits). */
    @Bean
    @ConditionalOnProperty(name = "checkout.deadlines.execution-log", havingValue = "true")
    public DeadlineExecutionLog deadlineExecutionLog(JdbcTemplate jdbc, ClusterProperties cluster) {
        return new DeadlineExecutionLog(jdbc, cluster.nodeId());
    }
}
