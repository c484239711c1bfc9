package io.durablecheckout.orchestrator.admission;

import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.config.ScratchDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The backlog limit follows the drain rate (Little's law, decision 134), measured from the read model's counts by
 * tenant and state on a real PostgreSQL: a slow workflow lowers the limit to what it drains in {@code max-wait}, a
 * stalled one to {@code min-backlog}, a fast one raises it up to {@code max-backlog}; idle time changes nothing.
 */
class AdmissionDrainTest {

    static ScratchDatabase database;
    static JdbcTemplate jdbc;
    final MovingClock clock = new MovingClock();
    Admission admission;
    long completed;

    @BeforeAll
    static void database() throws Exception {
        database = ScratchDatabase.start("admission-drain");
        jdbc = new JdbcTemplate(database.dataSource());
        jdbc.execute("CREATE TABLE checkout_state_counts (tenant_id TEXT NOT NULL, state TEXT NOT NULL,"
                + " n BIGINT NOT NULL, PRIMARY KEY (tenant_id, state))");
    }

    @AfterAll
    static void stop() throws Exception {
        database.close();
    }

    @BeforeEach
    void fresh() {
        jdbc.update("DELETE FROM checkout_state_counts");
        completed = 0;
        admission = new Admission(jdbc, clock, new AdmissionProperties(1000L, Duration.ofMillis(200),
                Duration.ofSeconds(2), 5L), new SimpleMeterRegistry());
    }

    /** The read model now: {@code inFlight} of tenant a paying, and {@code completed} so far. */
    private void counts(long inFlight) {
        jdbc.update("DELETE FROM checkout_state_counts");
        jdbc.update("INSERT INTO checkout_state_counts VALUES ('a', 'payment_pending', ?), ('a', 'completed', ?),"
                + " ('b', 'cancelled', 3)", inFlight, completed);
    }

    /** {@code rounds} seconds in which {@code perSecond} of {@code inFlight} complete and as many arrive elsewhere. */
    private void drain(int rounds, long inFlight, long perSecond) {
        for (int i = 0; i < rounds; i++) {
            completed += perSecond;
            counts(inFlight);
            clock.advance(Duration.ofSeconds(1));
            admission.backlog(); // counts afresh
        }
    }

    @Test
    void aCheckAdmitsNothingAndRefusesExactlyWhenAdmitWould() {
        counts(0);
        admission.limit(3);
        admission.backlog();
        TenantId a = new TenantId("a");
        for (int i = 0; i < 10; i++) {
            admission.check(a); // takes no place: ten checks leave the three places free
        }
        admission.admit(a);
        admission.admit(a);
        admission.check(a);
        admission.admit(a);
        assertThatThrownBy(() -> admission.check(a)).isInstanceOf(Admission.BacklogFullException.class)
                .hasMessageContaining("has 3 checkouts in flight");
        assertThatThrownBy(() -> admission.admit(a)).isInstanceOf(Admission.BacklogFullException.class);
    }

    @Test
    void aSlowWorkflowLowersTheLimitToWhatItDrainsInTheWait() {
        counts(50);
        admission.backlog();
        drain(40, 50, 20); // 20/s: 40 in 2 s
        assertThat(admission.drainPerSecond()).isBetween(19.9, 20.1);
        assertThat(admission.effectiveLimit()).isEqualTo(40);
        assertThatThrownBy(() -> admission.admit(new TenantId("a")))
                .isInstanceOf(Admission.BacklogFullException.class)
                .hasMessageContaining("has 50 checkouts in flight")
                .hasMessageContaining("40 (what the workflow drains in 2 s at 20.0/s)")
                .satisfies(e -> assertThat(((Admission.BacklogFullException) e).retryAfterSeconds()).isEqualTo(1));
        completed += 20; // the next second drains 20 as before, and nothing new came in
        counts(30);
        clock.advance(Duration.ofSeconds(1));
        admission.admit(new TenantId("a")); // under the bound again: admitted
    }

    @Test
    void aStalledWorkflowAdmitsNoMoreThanTheFloor() {
        counts(10);
        admission.backlog();
        drain(60, 10, 0);
        assertThat(admission.effectiveLimit()).isEqualTo(5);
        assertThatThrownBy(() -> admission.admit(new TenantId("a"))).isInstanceOf(Admission.BacklogFullException.class);
    }

    @Test
    void aFastWorkflowRaisesItUpToTheConfiguredLimit() {
        counts(10);
        admission.backlog();
        drain(40, 10, 2000);
        assertThat(admission.effectiveLimit()).isEqualTo(1000);
        admission.admit(new TenantId("a"));
    }

    @Test
    void idleTimeSaysNothingAboutTheRate() {
        counts(10);
        admission.backlog();
        drain(40, 10, 20);
        drain(60, 0, 0); // nothing in flight, nothing finishing
        assertThat(admission.drainPerSecond()).isBetween(19.9, 20.1);
        assertThat(admission.effectiveLimit()).isEqualTo(40);
    }

    @Test
    void withoutAWaitTheConfiguredLimitHolds() {
        admission.maxWait(Duration.ZERO);
        counts(50);
        admission.backlog();
        drain(40, 50, 0);
        assertThat(admission.effectiveLimit()).isEqualTo(1000);
        admission.admit(new TenantId("a"));
    }

    /** A clock the test moves. */
    static final class MovingClock extends Clock {
        private Instant now = Instant.parse("2026-12-07T12:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
