package io.durablecheckout.orchestrator.it.support;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A scrape of /actuator/prometheus, read back into numbers: sum of every series of a name whose labels match. */
public final class Prometheus {

    private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final Map<String, Map<Map<String, String>, Double>> series = new LinkedHashMap<>();

    public Prometheus(String text) {
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (!m.find()) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            series.computeIfAbsent(m.group(1), k -> new LinkedHashMap<>()).put(labels, Double.parseDouble(m.group(4)));
        }
    }

    /** The series of a name and their values, for failure messages. */
    public String describe(String name) {
        return name + " " + series.getOrDefault(name, Map.of());
    }

    /** Whether a series of that name with those labels ("k", "v", ...) is exported at all, whatever its value. */
    public boolean has(String name, String... labels) {
        for (Map<String, String> l : series.getOrDefault(name, Map.of()).keySet()) {
            boolean match = true;
            for (int i = 0; i + 1 < labels.length; i += 2) {
                match &= labels[i + 1].equals(l.get(labels[i]));
            }
            if (match) return true;
        }
        return false;
    }

    /** Whether some series of that name carries the label at all. */
    public boolean hasLabel(String name, String label) {
        return series.getOrDefault(name, Map.of()).keySet().stream().anyMatch(l -> l.containsKey(label));
    }

    /** label pairs as "k", "v", "k2", "v2"; 0 when no series matches: check {@link #has} before reading a zero. */
    public double value(String name, String... labels) {
        Map<Map<String, String>, Double> all = series.getOrDefault(name, Map.of());
        double sum = 0;
        for (Map.Entry<Map<String, String>, Double> e : all.entrySet()) {
            boolean match = true;
            for (int i = 0; i + 1 < labels.length; i += 2) {
                if (!labels[i + 1].equals(e.getKey().get(labels[i]))) {
                    match = false;
                    break;
                }
            }
            if (match) {
                sum += e.getValue();
            }
        }
        return sum;
    }
}
