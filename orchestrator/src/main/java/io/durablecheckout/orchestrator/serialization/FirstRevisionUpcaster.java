package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.axonframework.serialization.SimpleSerializedType;
import org.axonframework.serialization.upcasting.event.IntermediateEventRepresentation;
import org.axonframework.serialization.upcasting.event.SingleEventUpcaster;

/**
 * One event type from revision 1 (stored without a revision, or as "1") to 2, by a change to its JSON object: what
 * every upcaster here shares, so each states only its type and its change.
 */
abstract class FirstRevisionUpcaster extends SingleEventUpcaster {

    private final String type;
    private final SimpleSerializedType target;

    FirstRevisionUpcaster(Class<?> eventType) {
        this.type = eventType.getName();
        this.target = new SimpleSerializedType(type, "2");
    }

    /** Revision 1's JSON, changed in place to revision 2's. */
    abstract void upcast(ObjectNode event);

    @Override
    protected final boolean canUpcast(IntermediateEventRepresentation representation) {
        String revision = representation.getType().getRevision();
        return type.equals(representation.getType().getName()) && (revision == null || "1".equals(revision));
    }

    @Override
    protected final IntermediateEventRepresentation doUpcast(IntermediateEventRepresentation representation) {
        return representation.upcastPayload(target, JsonNode.class, node -> {
            upcast((ObjectNode) node);
            return node;
        });
    }
}
