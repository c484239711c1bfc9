package io.durablecheckout.orchestrator.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durablecheckout.orchestrator.serialization.AxonJson;
import io.durablecheckout.orchestrator.serialization.ProductJson;

import java.util.function.BiFunction;

/**
 * A history bundle of format 2 holds its events in the product's printed dialect ({@link ProductJson}: plain ids,
 * ISO-8601 durations), each event at the revision of the code that exported it. Every payload is converted through
 * its own type, never by guessing from the tree: the event's (today's class), and in the metadata the recorded
 * input's command or deadline payload and each scheduled deadline's payload, looked up by name in the checkout's
 * fixed lists ({@link RecordedInputs}). On loading, the deadline payloads go back to the stored shape, the one the
 * replayer's own recording of today's deadlines has; everything else reads in either shape
 * ({@link io.durablecheckout.orchestrator.serialization.ValueObjects#readers()}).
 */
final class BundleDialect {

    static final ObjectMapper PRINTED = ProductJson.configure(ReplayTypes.guarded(AxonJson.objectMapper()));

    private BundleDialect() {
    }

    /** An event as today's code reads it, printed. */
    static JsonNode payload(Object event) {
        return PRINTED.valueToTree(event);
    }

    /** Stored metadata with its recorded input and deadline payloads printed. */
    static JsonNode printed(JsonNode storedMetaData) {
        return convert(storedMetaData, (node, type) -> PRINTED.valueToTree(RecordedInputs.MAPPER.convertValue(node, type)));
    }

    /** A format-2 bundle's metadata with its deadline payloads back in the stored shape. */
    static JsonNode stored(JsonNode printedMetaData) {
        return convert(printedMetaData, (node, type) -> RecordedInputs.MAPPER.valueToTree(
                RecordedInputs.MAPPER.convertValue(node, type)));
    }

    private static JsonNode convert(JsonNode metaData, BiFunction<JsonNode, Class<?>, JsonNode> conversion) {
        if (!(metaData instanceof ObjectNode copy)) {
            return metaData;
        }
        if (copy.get(RecordedInputs.INPUT) instanceof ObjectNode input && input.hasNonNull("payload")) {
            Class<?> type = "command".equals(input.path("kind").asText())
                    ? RecordedInputs.COMMANDS.get(input.path("type").asText())
                    : RecordedInputs.DEADLINE_PAYLOADS.get(input.path("payloadType").asText());
            if (type != null) {
                input.set("payload", conversion.apply(input.get("payload"), type));
            }
        }
        for (JsonNode op : copy.path(RecordedInputs.DEADLINES)) {
            Class<?> type = RecordedInputs.DEADLINE_PAYLOADS.get(op.path("payloadType").asText());
            if (op instanceof ObjectNode schedule && type != null && schedule.hasNonNull("payload")) {
                schedule.set("payload", conversion.apply(schedule.get("payload"), type));
            }
        }
        return copy;
    }
}
