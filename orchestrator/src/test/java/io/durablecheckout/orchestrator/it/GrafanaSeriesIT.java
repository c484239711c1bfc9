package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.NodeProcess;
import io.durablecheckout.orchestrator.it.support.Prometheus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every series the shipped Grafana dashboards chart exists on a fresh node, before its first checkout: each PromQL
 * expression of {@code docs/grafana/*.json} is parsed into its metric selectors (name and label matchers) and the
 * labels it aggregates by, and the node's {@code /actuator/prometheus} must hold, for each selector, a series with
 * those labels. A series registered only when first counted fails here (its panel would say "no data" and a
 * {@code rate()} alert could not fire on the first event).
 */
class GrafanaSeriesIT {

    /** How many expressions docs/grafana holds today: a change to the dashboards changes this on purpose. */
    static final int EXPRESSIONS = 22;

    @Test
    void aFreshNodeExportsEverySeriesAndLabelTheDashboardsChart() throws Exception {
        List<Expression> expressions = dashboards(Path.of("..", "docs", "grafana"));
        assertThat(expressions).as("expressions parsed from docs/grafana").hasSize(EXPRESSIONS);
        assertThat(expressions).allSatisfy(e -> assertThat(e.selectors()).as(e.text()).isNotEmpty());

        Path dataDir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "grafana-pg-");
        // a fresh node: its own embedded PostgreSQL, nothing counted yet
        try (NodeProcess node = NodeProcess.start("grafana-fresh-node", "",
                List.of("--checkout.embedded-postgres.data-dir=" + dataDir))) {
            HttpApi.Response scrape = new HttpApi(node.port()).send("GET", "/actuator/prometheus",
                    HttpApi.OPERATOR_KEY, Map.of(), null);
            assertThat(scrape.status()).as(scrape.body()).isEqualTo(200);
            Prometheus prometheus = new Prometheus(scrape.body());

            List<String> missing = new ArrayList<>();
            for (Expression e : expressions) {
                for (Selector s : e.selectors()) {
                    List<String> wanted = new ArrayList<>();
                    s.matchers().forEach((k, v) -> {
                        wanted.add(k);
                        wanted.add(v);
                    });
                    if (!prometheus.has(s.name(), wanted.toArray(String[]::new))) {
                        missing.add(s.name() + s.matchers() + " (in " + e.text() + ")");
                        continue;
                    }
                    for (String label : e.byLabels()) {
                        if (!prometheus.hasLabel(s.name(), label)) {
                            missing.add(s.name() + " without the label '" + label + "' (in " + e.text() + ")");
                        }
                    }
                }
            }
            assertThat(missing).as("series and labels the dashboards chart, absent on a fresh node").isEmpty();
            assertThat(prometheus.value("checkout_started_total")).as("nothing counted yet").isZero();
        }
    }

    @Test
    void theParserFindsSelectorsMatchersAndAggregationLabels() {
        Expression e = Expression.parse("sum by (state) (rate(checkout_state_duration_seconds_sum[5m])) / "
                + "sum by (state) (rate(checkout_state_duration_seconds_count[5m]))");
        assertThat(e.selectors()).extracting(Selector::name)
                .containsExactly("checkout_state_duration_seconds_sum", "checkout_state_duration_seconds_count");
        assertThat(e.byLabels()).containsExactly("state");
        Expression q = Expression.parse("max by (deadline) (checkout_deadline_lag_seconds{quantile=\"0.99\"})");
        assertThat(q.selectors()).containsExactly(new Selector("checkout_deadline_lag_seconds",
                Map.of("quantile", "0.99")));
        assertThat(q.byLabels()).containsExactly("deadline");
        assertThat(Expression.parse("sum(increase(checkout_reconciliation_lookups_total[15m]))").byLabels()).isEmpty();
    }

    // ------------------------------------------------------------------------------------------- PromQL, read

    /** Every {@code expr} of every panel target of every dashboard file in {@code dir}. */
    static List<Expression> dashboards(Path dir) throws IOException {
        List<Expression> all = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
            for (Path file : files) {
                collect(json.readTree(file.toFile()), all);
            }
        }
        return all;
    }

    private static void collect(JsonNode node, List<Expression> out) {
        if (node.isObject()) {
            node.fields().forEachRemaining(f -> {
                if (f.getKey().equals("expr") && f.getValue().isTextual()) {
                    out.add(Expression.parse(f.getValue().asText()));
                } else {
                    collect(f.getValue(), out);
                }
            });
        } else if (node.isArray()) {
            node.forEach(n -> collect(n, out));
        }
    }

    record Selector(String name, Map<String, String> matchers) {
    }

    /**
     * The parts of a PromQL expression a dashboard depends on: the metric selectors and the labels of its
     * {@code by (...)} clauses. Enough PromQL for the dashboards' own: functions, aggregations with by/without,
     * selectors with equality matchers, ranges, numbers and binary operators.
     */
    record Expression(String text, List<Selector> selectors, Set<String> byLabels) {

        private static final Pattern TOKEN = Pattern.compile(
                "\\s*(?:(?<name>[a-zA-Z_:][a-zA-Z0-9_:]*)|(?<matchers>\\{[^}]*})|(?<range>\\[[^]]*])"
                        + "|(?<number>[0-9.]+(?:e[+-]?[0-9]+)?)|(?<string>\"[^\"]*\")|(?<punct>[()+\\-*/,^%<>=!]))");
        private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*=\\s*\"([^\"]*)\"");
        private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left",
                "group_right", "bool", "and", "or", "unless", "offset");

        static Expression parse(String text) {
            List<String> tokens = new ArrayList<>();
            Matcher m = TOKEN.matcher(text);
            int at = 0;
            while (at < text.length() && m.find(at) && m.start() == at) {
                tokens.add(m.group().strip());
                at = m.end();
            }
            if (!text.substring(at).isBlank()) {
                throw new IllegalArgumentException("cannot read PromQL at '" + text.substring(at) + "' in " + text);
            }
            List<Selector> selectors = new ArrayList<>();
            Set<String> by = new LinkedHashSet<>();
            for (int i = 0; i < tokens.size(); i++) {
                String t = tokens.get(i);
                if (!Character.isLetter(t.charAt(0)) && t.charAt(0) != '_') {
                    continue;
                }
                String next = i + 1 < tokens.size() ? tokens.get(i + 1) : "";
                if (t.equals("by") || t.equals("without")) {
                    // by ( label, label ): the labels the result is charted by
                    int j = i + 2;
                    for (; j < tokens.size() && !tokens.get(j).equals(")"); j++) {
                        if (!tokens.get(j).equals(",") && t.equals("by")) {
                            by.add(tokens.get(j));
                        }
                    }
                    i = j;
                } else if (!KEYWORDS.contains(t) && !next.startsWith("(") && !next.equals("by")
                        && !next.equals("without")) { // not a function, nor an aggregation (sum by ...)
                    Map<String, String> matchers = new LinkedHashMap<>();
                    if (next.startsWith("{")) {
                        Matcher mm = MATCHER.matcher(next);
                        while (mm.find()) {
                            matchers.put(mm.group(1), mm.group(2));
                        }
                    }
                    selectors.add(new Selector(t, matchers));
                }
            }
            return new Expression(text, selectors, by);
        }
    }
}
