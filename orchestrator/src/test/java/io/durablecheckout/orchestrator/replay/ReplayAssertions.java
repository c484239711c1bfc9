package io.durablecheckout.orchestrator.replay;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Turns a history bundle into a regression test in one line (docs/replay.md): put the exported file under
 * {@code src/test/resources/} and
 * <pre>
 *   &#64;Test void incident_1234() { ReplayAssertions.assertReplaysIdentically("incidents/checkout-co_x.json"); }
 * </pre>
 * It fails with the replay's report (timeline, first differing position, input, field-level diff).
 */
public final class ReplayAssertions {

    private ReplayAssertions() {
    }

    /** Replays a bundle on the test classpath with today's code. */
    public static ReplayReport replay(String resource) {
        return new CheckoutReplayer().replay(read(resource));
    }

    public static void assertReplaysIdentically(String resource) {
        ReplayReport report = replay(resource);
        assertThat(report.verdict()).as("%s%n%s", resource, report.render()).isEqualTo(ReplayReport.Verdict.IDENTICAL);
    }

    public static StoredHistories.History read(String resource) {
        try (InputStream in = ReplayAssertions.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no bundle " + resource + " on the test classpath");
            }
            return HistoryBundle.read(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
