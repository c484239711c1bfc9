package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.NodeProcess;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 10, acceptance 5 (second half): no log line written during this test run holds an e-mail address or a
 * payment token. Runs after every other integration test of the JVM ({@code @Order}, see
 * junit-platform.properties) and reads this JVM's own log copy (logback-test.xml) and the logs of the application
 * processes the tests started (target/*.log) since this JVM began.
 */
@Order(Integer.MAX_VALUE)
class LogHygieneIT {

    /**
     * A local part with at least one non-digit (so {@code 12345@host} of a JVM name is not one), matched only from the
     * start of a run of its characters and possessively: the former pattern backtracked quadratically on long runs (a
     * hex-encoded batch in an exception message: 2,259 characters made the scan take minutes).
     */
    static final Pattern EMAIL = Pattern.compile("(?<![A-Za-z0-9._%+-])(?=[0-9]*+[A-Za-z._%+-])[A-Za-z0-9._%+-]++"
            + "@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}");
    static final Pattern PAYMENT_TOKEN = Pattern.compile("\\btok_[a-z_]+");

    @Test
    void theScannerRecognisesWhatItLooksFor() {
        assertThat(leaks(List.of("customer a@example.com paid", "token tok_timeout_then_approve",
                "12345@build-host.example.net started", "ok line", "x7b22" + "7472616365".repeat(20_000),
                "to bob.smith+shop@mail.example.org"))).hasSize(3);
    }

    @Test
    void noLogLineOfThisRunHoldsAnEmailAddressOrAPaymentToken() throws IOException {
        Instant since = ProcessHandle.current().info().startInstant().orElse(Instant.EPOCH);
        List<Path> logs = new ArrayList<>();
        Path own = Path.of("target", "test-logs", "test-run-" + ProcessHandle.current().pid() + ".log");
        assertThat(own).as("this JVM's log copy (logback-test.xml)").exists();
        logs.add(own);
        try (Stream<Path> nodes = Files.list(Path.of("target"))) {
            nodes.filter(p -> p.toString().endsWith(".log"))
                    .filter(p -> p.toFile().lastModified() >= since.toEpochMilli())
                    .forEach(logs::add);
        }
        List<String> leaks = new ArrayList<>();
        long lines = 0;
        for (Path log : logs) {
            List<String> content = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
            lines += content.size();
            leaks(content).forEach(line -> leaks.add(log.getFileName() + ": " + line));
        }
        assertThat(lines).as("lines read from %s", logs).isPositive();
        assertThat(leaks).as("log lines with personal data, of %d lines in %d files", lines, logs.size()).isEmpty();
    }

    /**
     * Issue 51: a fresh node's start logs no WARN or ERROR line (the user caused none), no vendor banner and no
     * PostgreSQL complaint about its configuration file; read once the node answers healthy and its processors run.
     */
    @Test
    void aFreshStartLogsNoWarningTheUserDidNotCause() throws Exception {
        Path dataDir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "hygiene-pg-");
        Path log = Path.of("target", "hygiene-fresh-node.log");
        Files.deleteIfExists(log);
        try (NodeProcess node = NodeProcess.start("hygiene-fresh-node", "",
                List.of("--checkout.embedded-postgres.data-dir=" + dataDir))) {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(
                    () -> Files.readString(log, StandardCharsets.ISO_8859_1).contains("Started CheckoutApplication"));
            HttpApi api = new HttpApi(node.port());
            String id = api.startCheckout("hygiene-" + java.util.UUID.randomUUID(),
                    HttpApi.checkoutBody("SKU-0400", 1, 1000, "tok_approve")).json().get("checkoutId").asText();
            api.awaitState(id, "completed", java.time.Duration.ofSeconds(30));
        }
        List<String> lines = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
        assertThat(startNoise(lines)).as("lines of a fresh start and first checkout in " + log).isEmpty();
        assertThat(startNoise(List.of("2026-12-07T01:43:06Z  WARN 1 --- [main] o.s.c.a.MergedAnnotation : x",
                "## You have not configured AxonIQ Console.", "LOG:  configuration file \"d\" contains errors",
                "2026-12-07T01:43:06Z  INFO 1 --- [main] ok"))).hasSize(3);
    }

    /** WARN and ERROR lines, the AxonIQ Console banner, PostgreSQL's configuration complaint. */
    static List<String> startNoise(List<String> lines) {
        Pattern level = Pattern.compile("^\\S+\\s+(WARN|ERROR)\\b");
        return lines.stream().filter(l -> level.matcher(l).find() || l.contains("AxonIQ Console")
                || l.contains("contains errors")).toList();
    }

    static List<String> leaks(List<String> lines) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            var email = EMAIL.matcher(line);
            boolean personal = false;
            while (email.find()) {
                String local = email.group().substring(0, email.group().indexOf('@'));
                if (!local.chars().allMatch(Character::isDigit)) personal = true; // pid@host is a node id
            }
            if (personal || PAYMENT_TOKEN.matcher(line).find()) {
                out.add(line.length() > 300 ? line.substring(0, 300) + "…" : line);
            }
        }
        return out;
    }
}
