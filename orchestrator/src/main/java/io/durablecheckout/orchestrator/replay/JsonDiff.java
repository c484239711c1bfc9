package io.durablecheckout.orchestrator.replay;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A field-level difference of two JSON values: one line per differing path, {@code path: recorded -> produced}. */
final class JsonDiff {

    private JsonDiff() {
    }

    static List<String> diff(JsonNode recorded, JsonNode produced) {
        List<String> lines = new ArrayList<>();
        walk("", recorded, produced, lines);
        return lines;
    }

    private static void walk(String path, JsonNode a, JsonNode b, List<String> out) {
        if (a == null || a.isMissingNode()) {
            out.add(label(path) + ": (absent) -> " + b);
            return;
        }
        if (b == null || b.isMissingNode()) {
            out.add(label(path) + ": " + a + " -> (absent)");
            return;
        }
        if (a.isObject() && b.isObject()) {
            Set<String> names = new LinkedHashSet<>();
            a.fieldNames().forEachRemaining(names::add);
            b.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                walk(path.isEmpty() ? name : path + "." + name, a.get(name), b.get(name), out);
            }
        } else if (a.isArray() && b.isArray()) {
            int n = Math.max(a.size(), b.size());
            for (int i = 0; i < n; i++) {
                walk(path + "[" + i + "]", a.get(i), b.get(i), out);
            }
        } else if (!sameValue(a, b)) {
            out.add(label(path) + ": " + a + " -> " + b);
        }
    }

    private static boolean sameValue(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        return a.equals(b);
    }

    private static String label(String path) {
        return path.isEmpty() ? "(value)" : path;
    }

    /**
     * Whether two JSON-like values (maps, lists, strings, numbers, booleans, null) are equal, a number being equal to
     * the same number of another type (metadata read back gives an Integer where the original had a Long). Cheaper
     * than building trees; trees are built only to describe a difference.
     */
    static boolean sameValues(Object a, Object b) {
        if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
            if (ma.size() != mb.size()) {
                return false;
            }
            for (Map.Entry<?, ?> e : ma.entrySet()) {
                if (!mb.containsKey(e.getKey()) || !sameValues(e.getValue(), mb.get(e.getKey()))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof List<?> la && b instanceof List<?> lb) {
            if (la.size() != lb.size()) {
                return false;
            }
            for (int i = 0; i < la.size(); i++) {
                if (!sameValues(la.get(i), lb.get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (a instanceof Number na && b instanceof Number nb) {
            return new java.math.BigDecimal(na.toString()).compareTo(new java.math.BigDecimal(nb.toString())) == 0;
        }
        return java.util.Objects.equals(a, b);
    }

    static boolean equal(JsonNode a, JsonNode b) {
        List<String> out = new ArrayList<>();
        walk("", a, b, out);
        return out.isEmpty();
    }
}
