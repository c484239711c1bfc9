package io.durablecheckout.orchestrator.axon.messaging;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.serialization.SerializedObject;
import org.axonframework.serialization.Serializer;

import javax.annotation.Nonnull;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What Axon's {@code MessageOriginProvider} and a {@code SimpleCorrelationDataProvider} of the given keys give
 * together (the handled message's id as {@code correlationId}, its {@code traceId} or else its id, and each of the keys
 * it carries), without reading a stored event's whole metadata to find four keys.
 * <p>
 * Axon asks the providers for every message a unit of work creates, and an event processor's unit of work creates a
 * result message for every event it hands to a handler: so every delivery deserialized the event's metadata, recorded
 * inputs included, when nothing else reads it (decision 83). For an event from the store this reads the keys from the
 * stored bytes instead, skipping everything else; any other message, or a key whose value is not a string, is read
 * as before.
 */
public final class OriginCorrelationDataProvider implements CorrelationDataProvider {

    static final String CORRELATION_ID = "correlationId";
    static final String TRACE_ID = "traceId";

    private static final JsonFactory JSON = new JsonFactory();

    private final Serializer eventSerializer;
    private final List<String> keys;

    /**
     * @param eventSerializer the event store's: its stored bytes are handed over as they are, not serialized again
     * @param keys            other metadata keys that follow a message into what it causes (an operator's)
     */
    public OriginCorrelationDataProvider(Serializer eventSerializer, List<String> keys) {
        this.eventSerializer = eventSerializer;
        this.keys = List.copyOf(keys);
    }

    @Nonnull
    @Override
    public Map<String, ?> correlationDataFor(@Nonnull Message<?> message) {
        Map<String, Object> data = new HashMap<>(4);
        data.put(CORRELATION_ID, message.getIdentifier());
        if (!(message instanceof TrackedEventMessage<?>) || !fromStoredBytes(message, data)) {
            data.put(TRACE_ID, message.getMetaData().getOrDefault(TRACE_ID, message.getIdentifier()));
            for (String key : keys) {
                if (message.getMetaData().containsKey(key)) {
                    data.put(key, message.getMetaData().get(key));
                }
            }
            return data;
        }
        data.putIfAbsent(TRACE_ID, message.getIdentifier());
        return data;
    }

    /** Adds the trace id and keys found at the top level of the stored metadata; false if it cannot tell. */
    private boolean fromStoredBytes(Message<?> message, Map<String, Object> data) {
        Map<String, Object> found = new HashMap<>(4);
        SerializedObject<byte[]> stored;
        try {
            stored = message.serializeMetaData(eventSerializer, byte[].class);
        } catch (RuntimeException e) {
            return false; // metadata held as an object only (an upcaster's): read it as before
        }
        try (JsonParser p = JSON.createParser(stored.getData())) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                boolean wanted = TRACE_ID.equals(name) || keys.contains(name);
                if (!wanted) {
                    p.skipChildren();
                } else if (value == JsonToken.VALUE_STRING) {
                    found.put(name, p.getText());
                } else {
                    return false; // not a plain string: the deserialized metadata says what it is
                }
            }
        } catch (IOException e) {
            return false;
        }
        data.putAll(found);
        return true;
    }
}
