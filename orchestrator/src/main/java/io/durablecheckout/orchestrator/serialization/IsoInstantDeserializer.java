package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;

import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Reads an {@link Instant} in the one form the serializer writes ({@code 2026-12-01T21:11:52.123456Z}: UTC, a
 * four-digit year, zero to nine fraction digits) by hand; anything else goes to the JSR-310 module's deserializer,
 * so what is accepted does not change. Every stored event carries instants (lease expiries, due times): through
 * {@code DateTimeFormatter} they were about a seventh of reading a history (docs/decisions.md §59).
 */
final class IsoInstantDeserializer extends StdScalarDeserializer<Instant> {

    private final JsonDeserializer<Instant> fallback = InstantDeserializer.INSTANT;

    IsoInstantDeserializer() {
        super(Instant.class);
    }

    @Override
    public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        if (p.currentToken() == JsonToken.VALUE_STRING) {
            Instant parsed = parse(p.getText());
            if (parsed != null) {
                return parsed;
            }
        }
        return fallback.deserialize(p, ctxt);
    }

    /** The instant {@code text} denotes if it has exactly the serializer's form, else null (not an error). */
    static Instant parse(String text) {
        int n = text.length();
        if (n < 20 || text.charAt(n - 1) != 'Z' || text.charAt(4) != '-' || text.charAt(7) != '-'
                || text.charAt(10) != 'T' || text.charAt(13) != ':' || text.charAt(16) != ':') {
            return null;
        }
        int year = digits(text, 0, 4);
        int month = digits(text, 5, 2);
        int day = digits(text, 8, 2);
        int hour = digits(text, 11, 2);
        int minute = digits(text, 14, 2);
        int second = digits(text, 17, 2);
        if ((year | month | day | hour | minute | second) < 0 || hour > 23 || minute > 59 || second > 59) {
            return null;
        }
        int nanos = 0;
        if (n > 20) { // a fraction: '.', then 1 to 9 digits, then 'Z'
            int fraction = n - 21;
            if (text.charAt(19) != '.' || fraction < 1 || fraction > 9) {
                return null;
            }
            nanos = digits(text, 20, fraction);
            if (nanos < 0) {
                return null;
            }
            for (int i = fraction; i < 9; i++) {
                nanos *= 10;
            }
        }
        try {
            long days = LocalDate.of(year, month, day).toEpochDay(); // validates the month's length
            return Instant.ofEpochSecond(days * 86_400 + hour * 3_600L + minute * 60L + second, nanos);
        } catch (DateTimeException e) {
            return null;
        }
    }

    /** The value of {@code length} decimal digits at {@code from}, or -1 if any is not a digit. */
    private static int digits(String text, int from, int length) {
        int value = 0;
        for (int i = from; i < from + length; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
