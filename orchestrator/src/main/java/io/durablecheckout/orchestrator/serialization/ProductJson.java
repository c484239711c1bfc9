package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * The one JSON dialect of everything the product prints (the API's histories, the replay report, the history
 * bundle, the command line): ids and other single values as plain values ({@code "co_1"}, not
 * {@code {"value": "co_1"}}), durations and instants as ISO-8601 ({@code "PT30S"}, {@code "2026-01-01T10:00:00Z"}),
 * decimals without exponents. It reads both this dialect and the stored one ({@link ValueObjects#readers()}). The
 * event store keeps its own shape ({@link AxonJson}): printing is a view, and stored events are not rewritten.
 */
public final class ProductJson {

    private static final ObjectMapper MAPPER = configure(AxonJson.objectMapper());

    private ProductJson() {
    }

    /** A new mapper of the dialect (configure a copy freely). */
    public static ObjectMapper mapper() {
        return MAPPER.copy();
    }

    /** {@code base} (a mapper of {@link AxonJson}'s) made to print in the dialect. */
    public static ObjectMapper configure(ObjectMapper base) {
        return base.registerModule(ValueObjects.scalars())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
                .enable(com.fasterxml.jackson.core.JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);
    }
}
