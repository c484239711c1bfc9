package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.json.JacksonSerializer;

import java.time.Instant;

/**
 * The JSON shape of everything Axon stores (events, sagas, tokens, deadlines): one definition shared by the running
 * application's serializers and the offline readers of stored events (replay, the read model's rebuild).
 */
public final class AxonJson {

    private AxonJson() {
    }

    /**
     * Axon 4 serializes with Jackson 2; Boot 4 itself uses Jackson 3, so this mapper is Axon's own. Field access lets
     * sagas keep private state without getters.
     */
    public static ObjectMapper objectMapper() {
        return new ObjectMapper()
                .registerModule(new JavaTimeModule())
                // after the JSR-310 module, so this reader of the common form wins (it falls back to the module's)
                .registerModule(new SimpleModule("iso-instant").addDeserializer(Instant.class,
                        new IsoInstantDeserializer()))
                // ids read as stored ({"value": ...}) or as printed (plain): a bundle of either dialect loads
                .registerModule(ValueObjects.readers())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .setVisibility(PropertyAccessor.FIELD, JsonAutoDetect.Visibility.ANY);
    }

    /**
     * Events are read strictly: an unknown or a missing property is an error, never a silent null. An old shape is
     * read through an upcaster (every event has a revision; docs/decisions.md, "Event evolution").
     */
    public static ObjectMapper strictEventObjectMapper() {
        return objectMapper()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES);
    }

    public static Serializer strictEventSerializer() {
        return JacksonSerializer.builder().objectMapper(strictEventObjectMapper()).build();
    }
}
