package io.durablecheckout.orchestrator.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import org.axonframework.serialization.SimpleSerializedType;
import org.axonframework.serialization.upcasting.event.IntermediateEventRepresentation;
import org.axonframework.serialization.upcasting.event.SingleEventUpcaster;

/**
 * {@code ActivityRetryScheduledEvent} revision 1 (stored without a revision, or as "1") to 2: the field {@code detail}
 * was renamed {@code lastFailure}. Without this, the strict event serializer refuses the old event (unknown
 * {@code detail}, missing {@code lastFailure}); a lenient one would have read the failure as null.
 */
final class ActivityRetryScheduledUpcaster extends SingleEventUpcaster {

    static final String TYPE = ActivityRetryScheduledEvent.class.getName();
    private static final SimpleSerializedType TARGET = new SimpleSerializedType(TYPE, "2");

    @Override
    protected boolean canUpcast(IntermediateEventRepresentation representation) {
        String revision = representation.getType().getRevision();
        return TYPE.equals(representation.getType().getName()) && (revision == null || "1".equals(revision));
    }

    @Override
    protected IntermediateEventRepresentation doUpcast(IntermediateEventRepresentation representation) {
        return representation.upcastPayload(TARGET, JsonNode.class, node -> {
            ObjectNode event = (ObjectNode) node;
            event.set("lastFailure", event.remove("detail"));
            return event;
        });
    }
}
