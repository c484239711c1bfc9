package io.durablecheckout.benchmarks;

import io.durablecheckout.api.checkout.CheckoutCompletedEvent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/** The recovery run's completion count, which reads a window of positions, on a real (embedded) PostgreSQL. */
class CompletionCountTest {

    private static BenchDatabase db;

    @BeforeAll
    static void start() throws Exception {
        db = BenchDatabase.open(BenchOptions.parse(new String[0]));
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE domainevententry (globalindex bigint PRIMARY KEY, payloadtype text NOT NULL)");
            // positions 10 and 2001 left free: appends that commit after later ones
            s.execute("INSERT INTO domainevententry SELECT g, 'other' FROM generate_series(1, 2999) g WHERE g NOT IN (10, 2001)");
        }
        append(3000, true);
    }

    @AfterAll
    static void stop() throws Exception {
        db.close();
    }

    @Test
    void anAppendCommittedAfterLaterOnesIsCountedInTheWindowOrByTheNextFullRead() throws Exception {
        BenchDatabase.CompletionCount count = db.completionCount();
        assertThat(count.read()).as("the first read goes over every position").isEqualTo(1);

        append(2001, true); // 999 behind the newest: inside the window
        assertThat(count.read()).as("a late append inside the window, at the next read").isEqualTo(2);

        append(10, true); // far behind: only a read over every position finds it
        assertThat(count.read()).as("outside the window").isEqualTo(2);
        int reads = 1;
        while (count.read() < 3) {
            reads++;
            assertThat(reads).as("reads until the full one").isLessThanOrEqualTo(20);
        }
        assertThat(count.read()).as("a completion is counted once").isEqualTo(3);
    }

    private static void append(long position, boolean completion) throws Exception {
        try (Connection c = db.connect(); PreparedStatement p = c.prepareStatement(
                "INSERT INTO domainevententry (globalindex, payloadtype) VALUES (?, ?)")) {
            p.setLong(1, position);
            p.setString(2, completion ? CheckoutCompletedEvent.class.getName() : "other");
            p.executeUpdate();
        }
    }
}
