package io.durablecheckout.orchestrator.config;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A deadline whose execution fails runs again within seconds. Real db-scheduler on real PostgreSQL, with the
 * product's scheduled_tasks table; the task underneath keeps db-scheduler's one-time default (retry in 5 minutes),
 * as Axon's deadline task does.
 */
class PromptRetryTaskTest {

    static EmbeddedPostgresServer postgres;
    static PGSimpleDataSource dataSource;

    @BeforeAll
    static void database() throws Exception {
        Path target = Path.of("target");
        Files.createDirectories(target);
        postgres = EmbeddedPostgresServer.start(Files.createTempDirectory(target.toAbsolutePath(), "retry-pg-"), 0);
        dataSource = new PGSimpleDataSource();
        dataSource.setUrl(postgres.jdbcUrl());
        dataSource.setUser("postgres");
        try (var in = PromptRetryTaskTest.class.getResourceAsStream("/db/migration/core/V2__db_scheduler.sql")) {
            new JdbcTemplate(dataSource).execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
    }

    @Test
    void aFailedExecutionRunsAgainWithinSecondsNotMinutes() {
        List<Instant> attempts = new CopyOnWriteArrayList<>();
        OneTimeTask<Void> failsOnce = Tasks.oneTime("fails-once").execute((instance, context) -> {
            attempts.add(Instant.now());
            if (attempts.size() == 1) {
                throw new IllegalStateException("lost a race with another node");
            }
        });
        Scheduler scheduler = Scheduler.create(dataSource,
                        new PromptRetryTask<>(failsOnce, Duration.ofMillis(500), Duration.ofSeconds(30)))
                .tableName("scheduled_tasks").pollingInterval(Duration.ofMillis(100)).threads(1).build();
        scheduler.start();
        try {
            scheduler.schedule(failsOnce.instance("d-1"), Instant.now());

            await().atMost(Duration.ofSeconds(10)).until(() -> attempts.size() == 2);
            assertThat(Duration.between(attempts.get(0), attempts.get(1))).isLessThan(Duration.ofSeconds(3));
            await().atMost(Duration.ofSeconds(5)).until(() -> new JdbcTemplate(dataSource).queryForObject(
                    "SELECT count(*) FROM scheduled_tasks WHERE task_name = 'fails-once'", Long.class) == 0);
        } finally {
            scheduler.stop();
        }
    }

    @Test
    void theDelayDoublesUpToItsCeiling() {
        Duration initial = Duration.ofSeconds(1);
        Duration max = Duration.ofSeconds(30);
        assertThat(PromptRetryTask.retryDelay(initial, max, 0)).isEqualTo(Duration.ofSeconds(1));
        assertThat(PromptRetryTask.retryDelay(initial, max, 1)).isEqualTo(Duration.ofSeconds(2));
        assertThat(PromptRetryTask.retryDelay(initial, max, 4)).isEqualTo(Duration.ofSeconds(16));
        assertThat(PromptRetryTask.retryDelay(initial, max, 5)).isEqualTo(Duration.ofSeconds(30));
        assertThat(PromptRetryTask.retryDelay(initial, max, 1_000)).isEqualTo(Duration.ofSeconds(30));
    }
}
