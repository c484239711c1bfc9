package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.FaultMatrix;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.NodeProcess;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * SIGTERM, as a rolling restart or Kubernetes sends it (docs/operations.md, "Rolling restart"):
 * <ul>
 *   <li>one of two nodes on one PostgreSQL, under the fault matrix's mixed workload: it exits within the bound
 *   with no WARN or ERROR line, its segment claims are released (not left to time out: the claim timeout here is
 *   30 s), the other node holds every segment within 5 s of the signal, and every checkout settles with no effect
 *   lost or repeated (counted at the provider simulator and the mail sink);</li>
 *   <li>the README's start (embedded PostgreSQL) with checkouts in flight: it exits within the bound with no WARN or
 *   ERROR line, and its PostgreSQL stopped with it, last.</li>
 * </ul>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GracefulShutdownIT {

    /** ShutdownConfiguration's default bound (checkout.shutdown.timeout). */
    static final Duration BOUND = Duration.ofSeconds(20);
    static final Duration CLAIM_TIMEOUT = Duration.ofSeconds(30);
    static final Pattern WARN_OR_ERROR = Pattern.compile("^\\S+\\s+(WARN|ERROR)\\s");

    @Test
    @Order(1)
    void aStoppedNodeHandsItsSegmentsToTheOtherAtOnceAndNothingIsLostOrDoneTwice() throws Exception {
        try (FaultMatrix.Run r = new FaultMatrix.Run("sigterm")) {
            NodeProcess first = node(r, "n1"); // alone first: it migrates the schema
            NodeProcess second = node(r, "n2");
            await("both nodes hold segments").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                    .until(() -> r.count("SELECT count(DISTINCT owner) FROM tokenentry WHERE owner IS NOT NULL") == 2);

            long base = r.eventCount();
            r.submitWorkload(first.port());
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(20))
                    .until(() -> r.eventCount() - base >= 40); // well into the workload, checkouts between steps
            long logOffset = Files.size(first.log());
            long signalled = System.nanoTime();
            first.signal("TERM");
            r.port.set(second.port()); // the clients go on with the other node
            assertThat(first.awaitExit(BOUND)).as("exited within %s", BOUND).isTrue();
            double exited = seconds(signalled);
            assertThat(first.exitCode()).as("ended by the signal after a complete stop, not halted").isEqualTo(143);
            assertThat(r.count("SELECT count(*) FROM tokenentry WHERE owner = 'n1'"))
                    .as("claims released on the way out").isZero();
            await("n2 holds every segment").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                    .until(() -> r.count("SELECT count(*) FROM tokenentry WHERE owner = 'n2'")
                            == r.count("SELECT count(*) FROM tokenentry"));
            double takenOver = seconds(signalled);
            System.out.printf("SHUTDOWN n1 exited %.1f s after SIGTERM; n2 held every segment after %.1f s "
                    + "(claim timeout %d s)%n", exited, takenOver, CLAIM_TIMEOUT.toSeconds());
            assertThat(warningsAfter(first.log(), logOffset)).as("WARN/ERROR lines after SIGTERM").isEmpty();

            FaultMatrix.Result result = r.judge("SIGTERM", "one of two nodes, under load", 1, signalled);
            assertThat(result.violations()).as(result.row()).isEmpty();
            assertThat(result.lost()).as("lost").isZero();
            assertThat(result.duplicated()).as("duplicated side effects").isZero();
            assertThat(result.invisibleStuck()).as("stuck without saying why").isZero();
            assertThat(r.count("SELECT count(*) FROM mail_sink_messages")).as("messages at the mail sink")
                    .isPositive();
        }
    }

    @Test
    @Order(2)
    void theEmbeddedStartStopsWithItsDatabaseLast() throws Exception {
        Path dataDir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "sigterm-embedded-pg-");
        // no database URL: the embedded PostgreSQL on the data directory, as the README starts it
        NodeProcess node = NodeProcess.start("sigterm-embedded", "",
                List.of("--checkout.embedded-postgres.data-dir=" + dataDir));
        try {
            HttpApi api = new HttpApi(node.port());
            for (int i = 0; i < 6; i++) {
                HttpApi.Response accepted = api.startCheckout("sigterm-" + UUID.randomUUID(),
                        HttpApi.checkoutBody("SKU-0001", 1, 1000, "tok_slow"));
                assertThat(accepted.status()).isEqualTo(202);
            }
            Path pidFile = dataDir.resolve("postmaster.pid");
            long postmaster = Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
            long logOffset = Files.size(node.log());
            node.signal("TERM");
            assertThat(node.awaitExit(BOUND)).as("exited within %s", BOUND).isTrue();
            assertThat(node.exitCode()).isEqualTo(143);
            // gone once reaped (it was the node's child)
            await("the embedded PostgreSQL stopped with it").atMost(Duration.ofSeconds(5))
                    .until(() -> !ProcessHandle.of(postmaster).map(ProcessHandle::isAlive).orElse(false));
            assertThat(pidFile).as("stopped cleanly (no pid file left)").doesNotExist();
            List<String> lines = Files.readAllLines(node.log(), StandardCharsets.ISO_8859_1);
            int pool = indexOf(lines, "HikariDataSource", "Shutdown completed");
            int database = indexOf(lines, "EmbeddedPostgres", "shut down postmaster");
            assertThat(pool).as("the pool closed").isPositive();
            assertThat(database).as("the database stopped after the pool closed").isGreaterThan(pool);
            assertThat(warningsAfter(node.log(), logOffset)).as("WARN/ERROR lines after SIGTERM").isEmpty();
        } finally {
            node.kill9();
        }
    }

    private static NodeProcess node(FaultMatrix.Run r, String name) throws IOException {
        List<String> args = new ArrayList<>();
        // the matrix's settings with a long claim timeout: a takeover within seconds is a release, not an expiry
        FaultMatrix.NODE_ARGS.stream().filter(a -> !a.startsWith("--checkout.processing.claim-timeout="))
                .forEach(args::add);
        args.add("--checkout.processing.claim-timeout=" + CLAIM_TIMEOUT.toSeconds() + "s");
        args.add("--checkout.processing.node-id=" + name);
        args.add("--checkout.processing.balance-interval=1s");
        NodeProcess p = NodeProcess.start("matrix-" + r.name + "-" + name, r.postgres.jdbcUrl(), args,
                ScaleOutIT.JVM);
        r.nodes.add(p);
        r.port.compareAndSet(0, p.port());
        return p;
    }

    /** The WARN and ERROR lines written after {@code offset} bytes of the log. */
    static List<String> warningsAfter(Path log, long offset) throws IOException {
        List<String> found = new ArrayList<>();
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
            file.seek(offset);
            byte[] rest = new byte[(int) (file.length() - offset)];
            file.readFully(rest);
            for (String line : new String(rest, StandardCharsets.ISO_8859_1).split("\n")) {
                if (WARN_OR_ERROR.matcher(line).find()) {
                    found.add(line.length() > 300 ? line.substring(0, 300) + "…" : line);
                }
            }
        }
        return found;
    }

    private static int indexOf(List<String> lines, String logger, String text) {
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).contains(logger) && lines.get(i).contains(text)) {
                return i;
            }
        }
        return -1;
    }

    private static double seconds(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1e9;
    }
}
