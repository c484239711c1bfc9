package io.durablecheckout.orchestrator.cluster;

import io.durablecheckout.orchestrator.axon.eventstore.PostgresDuplicateKeyResolver;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.commandhandling.gateway.ExponentialBackOffIntervalRetryScheduler;
import org.axonframework.common.lock.PessimisticLockFactory;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.modelling.command.ConcurrencyException;
import org.axonframework.modelling.command.ConflictingAggregateVersionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

import java.sql.BatchUpdateException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A command that lost an append race is retried, and only that: the failure as PostgreSQL and Axon actually produce
 * it (a {@code ConcurrencyException} caused by the driver's batch exception caused by the unique violation). The
 * first version of the retry gave up on exactly this chain, because Axon's own predicate judged each cause alone
 * (ScaleOutIT answered 500 twice out of three).
 */
class AppendConflictRetryTest {

    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    static ConcurrencyException lostRace() {
        PSQLException unique = new PSQLException("duplicate key value violates unique constraint", PSQLState.UNIQUE_VIOLATION);
        BatchUpdateException batch = new BatchUpdateException("Batch entry 0 INSERT INTO DomainEventEntry", "23505", 0,
                new int[0], unique);
        batch.setNextException(unique);
        return new ConcurrencyException("An event for aggregate [co_1] at sequence [9] was already inserted", batch);
    }

    @Test
    void postgresUniqueViolationIsADuplicateKey() {
        PostgresDuplicateKeyResolver resolver = new PostgresDuplicateKeyResolver();
        PSQLException unique = new PSQLException("dup", PSQLState.UNIQUE_VIOLATION);
        assertThat(resolver.isDuplicateKeyViolation(unique)).isTrue();
        BatchUpdateException batch = new BatchUpdateException("batch", null, 0, new int[0]);
        batch.setNextException(unique);
        assertThat(resolver.isDuplicateKeyViolation(new RuntimeException(batch))).as("found via getNextException").isTrue();
        assertThat(resolver.isDuplicateKeyViolation(new PSQLException("fk", PSQLState.FOREIGN_KEY_VIOLATION))).isFalse();
        assertThat(resolver.isDuplicateKeyViolation(new IllegalStateException("x"))).isFalse();
    }

    @Test
    void onlyALostAppendRaceIsRetried() {
        ExponentialBackOffIntervalRetryScheduler scheduler = new ClusterConfiguration.AppendConflictRetryScheduler(
                ExponentialBackOffIntervalRetryScheduler.builder().retryExecutor(executor).backoffFactor(1).maxRetryCount(3));
        var command = GenericCommandMessage.asCommandMessage("cancel");
        assertThat(retried(scheduler, command, lostRace())).as("a lost race, with the driver's causes").isTrue();
        assertThat(retried(scheduler, command, new ConflictingAggregateVersionException("co_1", 3, 4)))
                .as("a stale If-Match: the client's version no longer exists").isFalse();
        assertThat(retried(scheduler, command, new IllegalStateException("cancellation not expected in state")))
                .as("a domain refusal").isFalse();
    }

    /**
     * The saga's command conflicts inside the saga's batch: the failed attempt's aggregate lock stays with the batch's
     * unit of work until it ends (Axon's locking repository releases it at the root's cleanup). The retry must run
     * where that lock is held, on the sending thread; on the retry thread it waited for the lock while the sender
     * waited for it (here the lock gives up after 0.5 s instead of Axon's 60).
     */
    @Test
    void aRetryInsideAUnitOfWorkRunsOnTheSendingThreadThatHoldsTheLock() throws Exception {
        PessimisticLockFactory locks = PessimisticLockFactory.builder().acquireAttempts(50).build();
        ExponentialBackOffIntervalRetryScheduler scheduler = new ClusterConfiguration.AppendConflictRetryScheduler(
                ExponentialBackOffIntervalRetryScheduler.builder().retryExecutor(executor).backoffFactor(1).maxRetryCount(3));
        var command = GenericCommandMessage.asCommandMessage("record result");
        CompletableFuture<String> retry = new CompletableFuture<>();
        DefaultUnitOfWork<?> batch = DefaultUnitOfWork.startAndGet(null);
        try {
            DefaultUnitOfWork<?> attempt = DefaultUnitOfWork.startAndGet(command);
            var lock = locks.obtainLock("co_1");
            attempt.onCleanup(u -> lock.release()); // nested: runs when the batch ends
            attempt.rollback(lostRace());
            boolean scheduled = retried(scheduler, command, lostRace(), () -> {
                try {
                    locks.obtainLock("co_1").release();
                    retry.complete(Thread.currentThread().getName());
                } catch (RuntimeException e) {
                    retry.completeExceptionally(e);
                }
            });
            assertThat(scheduled).isTrue();
            assertThat(retry.get(5, TimeUnit.SECONDS)).as("retried on the thread holding the lock")
                    .isEqualTo(Thread.currentThread().getName());
        } finally {
            batch.commit();
        }
        assertThat(locks.obtainLock("co_1")).as("released once the batch ended").isNotNull();
    }

    private static boolean retried(ExponentialBackOffIntervalRetryScheduler scheduler,
                                   org.axonframework.commandhandling.CommandMessage<?> command, RuntimeException failure) {
        return retried(scheduler, command, failure, () -> { });
    }

    private static boolean retried(ExponentialBackOffIntervalRetryScheduler scheduler,
                                   org.axonframework.commandhandling.CommandMessage<?> command, RuntimeException failure,
                                   Runnable dispatch) {
        List<Class<? extends Throwable>[]> history = new ArrayList<>();
        @SuppressWarnings("unchecked")
        Class<? extends Throwable>[] chain = new Class[]{failure.getClass()};
        history.add(chain);
        return scheduler.scheduleRetry(command, failure, history, dispatch);
    }
}
