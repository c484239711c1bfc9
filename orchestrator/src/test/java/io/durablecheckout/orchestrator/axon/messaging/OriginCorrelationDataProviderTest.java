package io.durablecheckout.orchestrator.axon.messaging;

import io.durablecheckout.orchestrator.checkout.OperatorMetadata;
import io.durablecheckout.orchestrator.serialization.AxonJson;
import org.axonframework.commandhandling.GenericCommandMessage;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.eventhandling.GenericTrackedEventMessage;
import org.axonframework.eventhandling.GlobalSequenceTrackingToken;
import org.axonframework.eventhandling.TrackedEventMessage;
import org.axonframework.messaging.Message;
import org.axonframework.messaging.MetaData;
import org.axonframework.messaging.correlation.CorrelationDataProvider;
import org.axonframework.messaging.correlation.MessageOriginProvider;
import org.axonframework.messaging.correlation.SimpleCorrelationDataProvider;
import org.axonframework.serialization.SerializedMessage;
import org.axonframework.serialization.SerializedObject;
import org.axonframework.serialization.Serializer;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decision 83: the origin of what a handled event causes is Axon's (its id as correlation, its trace, an operator's
 * keys), read from the stored metadata's bytes without deserializing it.
 */
class OriginCorrelationDataProviderTest {

    private static final Serializer SERIALIZER = AxonJson.strictEventSerializer();
    private static final List<String> KEYS = List.of(OperatorMetadata.ACTOR, OperatorMetadata.REASON,
            OperatorMetadata.ACTED_AT);
    private static final OriginCorrelationDataProvider PROVIDER = new OriginCorrelationDataProvider(SERIALIZER, KEYS);

    @Test
    void aStoredEventGivesAxonsOriginWithoutItsMetadataBeingRead() {
        Map<String, Object> metaData = new HashMap<>();
        metaData.put("traceId", "trace-1");
        metaData.put("correlationId", "cmd-1");
        metaData.put("replay.input", Map.of("id", "cmd-1", "payload", Map.of("items", List.of(Map.of("sku", "A"),
                Map.of("sku", "B")), "actor", "not the top level")));
        metaData.put("replay.deadlines", List.of(Map.of("op", "cancel", "name", "lease")));
        metaData.put(OperatorMetadata.ACTOR, "operator:ada");
        metaData.put(OperatorMetadata.REASON, "stuck \"since\" Monday");
        metaData.put("leaseDeadlineId", "d-7");

        SerializedMessage<?> stored = stored("ev-1", metaData);
        Map<String, Object> data = new HashMap<>(PROVIDER.correlationDataFor(tracked(stored)));

        assertThat(stored.isMetaDataDeserialized()).as("the stored metadata was not deserialized").isFalse();
        assertThat(data).isEqualTo(axons(tracked(stored("ev-1", metaData))))
                .containsEntry("correlationId", "ev-1").containsEntry("traceId", "trace-1")
                .containsEntry(OperatorMetadata.ACTOR, "operator:ada").doesNotContainKey(OperatorMetadata.ACTED_AT);
    }

    @Test
    void withoutATraceTheEventIsTheTraceAndAnythingButAStringIsReadAsAxonReadsIt() {
        SerializedMessage<?> untraced = stored("ev-2", Map.of("correlationId", "cmd-2"));
        assertThat(PROVIDER.correlationDataFor(tracked(untraced)))
                .isEqualTo(Map.of("correlationId", "ev-2", "traceId", "ev-2"));
        assertThat(untraced.isMetaDataDeserialized()).isFalse();

        Map<String, Object> odd = Map.of("traceId", "trace-3", OperatorMetadata.ACTED_AT, 1_733_400_000L);
        assertThat(PROVIDER.correlationDataFor(tracked(stored("ev-3", odd))))
                .isEqualTo(axons(tracked(stored("ev-3", odd))));
    }

    @Test
    void aMessageNotFromTheStoreIsReadAsAxonReadsIt() {
        Message<?> command = GenericCommandMessage.asCommandMessage("retry")
                .andMetaData(Map.of("traceId", "trace-4", OperatorMetadata.REASON, "asked to"));
        assertThat(PROVIDER.correlationDataFor(command)).isEqualTo(axons(command));
    }

    private static Map<String, Object> axons(Message<?> message) {
        Map<String, Object> data = new HashMap<>();
        for (CorrelationDataProvider provider : List.of(new MessageOriginProvider(),
                new SimpleCorrelationDataProvider(KEYS.toArray(String[]::new)))) {
            data.putAll(provider.correlationDataFor(message));
        }
        return data;
    }

    private static SerializedMessage<?> stored(String id, Map<String, ?> metaData) {
        SerializedObject<byte[]> payload = SERIALIZER.serialize("payload", byte[].class);
        SerializedObject<byte[]> meta = SERIALIZER.serialize(MetaData.from(metaData), byte[].class);
        return new SerializedMessage<>(id, payload, meta, SERIALIZER);
    }

    private static TrackedEventMessage<?> tracked(SerializedMessage<?> message) {
        return new GenericTrackedEventMessage<>(new GlobalSequenceTrackingToken(1),
                new GenericEventMessage<>(message, () -> Instant.EPOCH));
    }
}
