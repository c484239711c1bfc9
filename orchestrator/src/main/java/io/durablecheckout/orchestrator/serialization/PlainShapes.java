package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Iterator;
import java.util.Map;

/**
 * Events and recorded inputs in the API's own plain shapes: a value object stored as {@code {"value": x}} (ids,
 * tokens, SKUs) is shown as {@code x}. Presentation only; the store keeps its own shape.
 */
public final class PlainShapes {

    /** Axon's own mapper: the shapes the event store uses. */
    private static final ObjectMapper MAPPER = AxonJson.objectMapper();

    private PlainShapes() {
    }

    /** {@code value} as plain JSON-compatible maps, lists and scalars. */
    public static Object of(Object value) {
        return MAPPER.convertValue(tree(value), Object.class);
    }

    /** {@code value} as a plain JSON tree. */
    public static JsonNode tree(Object value) {
        return flatten(MAPPER.valueToTree(value));
    }

    private static JsonNode flatten(JsonNode node) {
        if (node instanceof ObjectNode object) {
            if (object.size() == 1 && object.has("value") && object.get("value").isValueNode()) {
                return object.get("value");
            }
            Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                field.setValue(flatten(field.getValue()));
            }
            return object;
        }
        if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                array.set(i, flatten(array.get(i)));
            }
        }
        return node;
    }
}
