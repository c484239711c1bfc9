package io.durablecheckout.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import static io.durablecheckout.benchmarks.Report.progress;

/**
 * The application's own counters, read from its Prometheus endpoint (with this run's operator key: metrics are for
 * operators), as sums by sample name and labels; {@link #delta} compares two readings.
 */
record AppMetrics(Map<String, Double> samples) {

    static final AppMetrics NONE = new AppMetrics(Map.of());

    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    static AppMetrics scrape(int port) {
        Map<String, Double> sums = new LinkedHashMap<>();
        try {
            String text = CLIENT.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
                                    + "/actuator/prometheus")).timeout(Duration.ofSeconds(10))
                            .header("Authorization", "Bearer " + BenchApplication.OPERATOR_KEY).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            for (String sample : text.split("\n")) {
                if (sample.startsWith("#") || sample.isBlank()) {
                    continue;
                }
                int space = sample.lastIndexOf(' ');
                sums.merge(sample.substring(0, space), Double.parseDouble(sample.substring(space + 1)), Double::sum);
            }
        } catch (IOException | RuntimeException e) {
            progress("could not read the application's metrics: %s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new AppMetrics(sums);
    }

    /** How much the metric grew from {@code before} to this reading, over the samples carrying every label given. */
    long delta(AppMetrics before, String name, String... labels) {
        return Math.round(sum(name, labels) - before.sum(name, labels));
    }

    private double sum(String name, String... labels) {
        double total = 0;
        for (Map.Entry<String, Double> e : samples.entrySet()) {
            String key = e.getKey();
            if (!(key.equals(name) || key.startsWith(name + "{"))) {
                continue;
            }
            boolean all = true;
            for (String label : labels) {
                all &= key.contains(label);
            }
            if (all) {
                total += e.getValue();
            }
        }
        return total;
    }
}
