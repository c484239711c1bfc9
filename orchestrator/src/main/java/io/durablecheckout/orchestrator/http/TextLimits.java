package io.durablecheckout.orchestrator.http;

import java.util.List;

/**
 * Bounds for free text that reaches an event, a row or a log line: a length limit and printable characters only (no
 * control characters, so nothing can forge a log line or hide in a history). Checked before anything is written.
 */
public final class TextLimits {

    public static final int REASON_MAX = 500;

    private TextLimits() {
    }

    /** The text if valid, else null with an error added; absent is an error only when required. */
    public static String text(String value, String field, int max, boolean required, List<String> errors) {
        if (value == null || value.isBlank()) {
            if (required) errors.add(field + ": required");
            return null;
        }
        if (value.length() > max) {
            errors.add(field + ": at most " + max + " characters");
            return null;
        }
        if (!printable(value)) {
            errors.add(field + ": printable characters only (no control characters)");
            return null;
        }
        return value.strip();
    }

    public static String reason(String value, List<String> errors) {
        return text(value, "reason", REASON_MAX, true, errors);
    }

    public static boolean printable(String value) {
        for (int i = 0; i < value.length(); ) {
            int cp = value.codePointAt(i);
            int type = Character.getType(cp);
            if (type == Character.CONTROL || type == Character.FORMAT || type == Character.UNASSIGNED
                    || type == Character.SURROGATE || type == Character.PRIVATE_USE
                    || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR) {
                return false;
            }
            i += Character.charCount(cp);
        }
        return true;
    }

    /** A short, safe excerpt of untrusted input for an error message. */
    public static String excerpt(String value) {
        String cut = value.length() > 40 ? value.substring(0, 40) + "…" : value;
        StringBuilder sb = new StringBuilder();
        cut.codePoints().forEach(cp -> sb.appendCodePoint(Character.isISOControl(cp) ? '?' : cp));
        return sb.toString();
    }
}
