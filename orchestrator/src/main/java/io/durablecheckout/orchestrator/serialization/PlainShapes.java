package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Iterator;
import java.util.Map;

/**
 * Events and recorded inputs in the product's one printed dialect ({@link ProductJson}): a value object stored as
 * {@code {"value": x}} (ids, tokens, SKUs) is shown as {@code x}, a duration as ISO-8601. Presentation only; the
 * store keeps its own shape. (Maps read from stored metadata still hold the stored shape: flattened here.)
 */
public final class PlainShapes {

    private static final ObjectMapper PRINTED = ProductJson.configure(AxonJson.objectMapper());

    private PlainShapes() {
    }

    /** {@code value} as plain JSON-compatible maps, lists and scalars. */
    public static Object of(Object value) {
        return PRINTED.convertValue(tree(value), Object.class);
    }

    /** {@code value} as one line of plain JSON. */
    public static String json(Object value) {
        return tree(value).toString();
    }

    /** {@code value} as a plain JSON tree. */
    public static JsonNode tree(Object value) {
        return flatten(PRINTED.valueToTree(value));
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
