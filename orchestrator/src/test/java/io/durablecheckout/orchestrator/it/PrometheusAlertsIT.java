package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.NodeProcess;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 51, Build 4: Debian's {@code prometheus} scrapes a node (with the operator key, as docker-compose.yml does)
 * under the shipped rule file {@code docs/prometheus/checkout-alerts.yml}, loaded unedited. A checkout driven into
 * manual review fires {@code CheckoutManualReviewWaiting} in Prometheus's own {@code /api/v1/alerts}, while a copy of
 * that rule with a wrong metric name, loaded beside it, does not fire; and every expression of the Grafana dashboards
 * returns a series from that server. A missing {@code prometheus} binary fails the test ({@code apt-get install
 * prometheus}; .ci/run installs it).
 */
class PrometheusAlertsIT {

    static final Path RULES = Path.of("..", "docs", "prometheus", "checkout-alerts.yml").toAbsolutePath().normalize();
    static final String ALERT = "CheckoutManualReviewWaiting";
    static final String BROKEN = ALERT + "WithAWrongMetricName";

    /** tok_unknown: the first answer times out, every lookup answers PENDING, the one allowed lookup runs out. */
    static final List<String> NODE_ARGS = List.of(
            "--checkout.payments.request-timeout=1s",
            "--checkout.simulator.timeout-delay=2s",
            "--checkout.workflow.reconciliation-initial-delay=200ms",
            "--checkout.workflow.reconciliation-max-lookups=1");

    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final ObjectMapper json = new ObjectMapper();

    @Test
    void theShippedRuleFiresInARealPrometheusAndTheBrokenCopyDoesNot() throws Exception {
        Path binary = Path.of(System.getProperty("prometheus.binary", "/usr/bin/prometheus"));
        assertThat(Files.isExecutable(binary)).as(binary + " (Debian: apt-get install prometheus)").isTrue();
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "prometheus-");

        try (NodeProcess node = NodeProcess.start("prometheus-node", "",
                concat(NODE_ARGS, "--checkout.embedded-postgres.data-dir=" + dir.resolve("pg")))) {
            Path broken = dir.resolve("broken-alerts.yml");
            Files.writeString(broken, brokenCopy(Files.readString(RULES)));
            int port = NodeProcess.freePort();
            Files.writeString(dir.resolve("prometheus.yml"), """
                    global: {scrape_interval: 1s, evaluation_interval: 1s}
                    rule_files: ["%s", "%s"]
                    scrape_configs:
                      - job_name: checkout
                        metrics_path: /actuator/prometheus
                        authorization: {type: Bearer, credentials: %s}
                        static_configs: [{targets: ["127.0.0.1:%d"]}]
                    """.formatted(RULES, broken, HttpApi.OPERATOR_KEY, node.port()));
            Process prometheus = new ProcessBuilder(binary.toString(),
                    "--config.file=" + dir.resolve("prometheus.yml"), "--storage.tsdb.path=" + dir.resolve("tsdb"),
                    "--web.listen-address=127.0.0.1:" + port)
                    .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
            try {
                String base = "http://127.0.0.1:" + port;
                await("the node scraped").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                        .ignoreExceptions().until(() -> get(base + "/api/v1/targets").path("data")
                                .path("activeTargets").path(0).path("health").asText(), "up"::equals);
                JsonNode groups = get(base + "/api/v1/rules").path("data").path("groups");
                List<String> loaded = new ArrayList<>();
                groups.forEach(g -> g.path("rules").forEach(r -> {
                    assertThat(r.path("health").asText()).as(r.path("name").asText()).isEqualTo("ok");
                    loaded.add(r.path("name").asText());
                }));
                assertThat(loaded).contains(ALERT, BROKEN).hasSize(13); // the 12 shipped rules and the broken copy
                assertThat(alerts(base)).as("nothing in manual review yet").doesNotContainKey(ALERT);

                HttpApi api = new HttpApi(node.port());
                HttpApi.Response started = api.startCheckout("prom-" + UUID.randomUUID(),
                        HttpApi.checkoutBody("SKU-0300", 1, 4200, "tok_unknown"));
                assertThat(started.status()).as(started.body()).isEqualTo(202);
                api.awaitState(started.json().get("checkoutId").asText(), "manual_review", Duration.ofSeconds(60));

                await("the alert firing in Prometheus").atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(500)).until(() -> alerts(base).get(ALERT), "firing"::equals);
                // the broken copy, evaluated on the same scrapes after the shipped rule fired, is not even pending
                java.time.Instant fired = java.time.Instant.now();
                await("the broken rule evaluated again").atMost(Duration.ofSeconds(20))
                        .pollInterval(Duration.ofMillis(500)).until(() -> lastEvaluation(base, "broken"),
                                t -> t != null && t.isAfter(fired.plusSeconds(2)));
                Map<String, String> now = alerts(base);
                assertThat(now).containsEntry(ALERT, "firing").doesNotContainKey(BROKEN);

                // every expression the Grafana dashboards chart returns a series from this server
                List<String> empty = new ArrayList<>();
                for (GrafanaSeriesIT.Expression e : GrafanaSeriesIT.dashboards(Path.of("..", "docs", "grafana"))) {
                    try {
                        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(
                                () -> query(base, e.text()).size(), n -> n > 0);
                    } catch (org.awaitility.core.ConditionTimeoutException timeout) {
                        empty.add(e.text());
                    }
                }
                assertThat(empty).as("Grafana expressions without a series in Prometheus").isEmpty();
            } finally {
                prometheus.destroy();
                prometheus.waitFor();
            }
        }
    }

    /** The shipped rule under another name, on a metric name that does not exist (a typo). */
    static String brokenCopy(String rules) {
        int at = rules.indexOf("- alert: " + ALERT);
        int end = rules.indexOf("- alert: ", at + 1);
        String rule = rules.substring(at, end);
        String broken = rule.replace("- alert: " + ALERT, "- alert: " + BROKEN)
                .replace("checkout_in_flight", "checkout_inflight");
        assertThat(broken).isNotEqualTo(rule).contains("checkout_inflight");
        return "groups:\n  - name: broken\n    rules:\n      " + broken.stripTrailing() + "\n";
    }

    /** Alert name to state (pending, firing) of every active alert. */
    Map<String, String> alerts(String base) throws IOException, InterruptedException {
        Map<String, String> states = new java.util.HashMap<>();
        get(base + "/api/v1/alerts").path("data").path("alerts")
                .forEach(a -> states.put(a.path("labels").path("alertname").asText(), a.path("state").asText()));
        return states;
    }

    /** When Prometheus last evaluated the rule group of that name; null before the first time. */
    java.time.Instant lastEvaluation(String base, String group) throws IOException, InterruptedException {
        for (JsonNode g : get(base + "/api/v1/rules").path("data").path("groups")) {
            if (g.path("name").asText().equals(group) && g.hasNonNull("lastEvaluation")) {
                java.time.Instant t = java.time.OffsetDateTime.parse(g.path("lastEvaluation").asText()).toInstant();
                return t.getEpochSecond() <= 0 ? null : t;
            }
        }
        return null;
    }

    JsonNode query(String base, String promql) throws IOException, InterruptedException {
        JsonNode answer = get(base + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        assertThat(answer.path("status").asText()).as(promql + ": " + answer).isEqualTo("success");
        return answer.path("data").path("result");
    }

    JsonNode get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        return json.readTree(r.body());
    }

    static List<String> concat(List<String> a, String b) {
        List<String> all = new ArrayList<>(a);
        all.add(b);
        return all;
    }
}
