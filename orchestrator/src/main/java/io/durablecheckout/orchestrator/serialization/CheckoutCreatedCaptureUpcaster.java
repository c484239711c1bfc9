package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import org.axonframework.serialization.SimpleSerializedType;
import org.axonframework.serialization.upcasting.event.IntermediateEventRepresentation;
import org.axonframework.serialization.upcasting.event.SingleEventUpcaster;

/**
 * {@code CheckoutCreatedEvent} revision 3 to 4: revision 4's policy records the capture mode, the hold's validity and
 * how long a payment waits for the customer (rules version 3). A checkout created before then has neither: read with {@code null}, which its rules version
 * (at most 2: no capture step) never reads. Runs after {@link CheckoutCreatedReceiptUpcaster} (2 to 3).
 */
final class CheckoutCreatedCaptureUpcaster extends SingleEventUpcaster {

    private static final String TYPE = CheckoutCreatedEvent.class.getName();
    private static final SimpleSerializedType TARGET = new SimpleSerializedType(TYPE, "4");

    @Override
    protected boolean canUpcast(IntermediateEventRepresentation representation) {
        return TYPE.equals(representation.getType().getName()) && "3".equals(representation.getType().getRevision());
    }

    @Override
    protected IntermediateEventRepresentation doUpcast(IntermediateEventRepresentation representation) {
        return representation.upcastPayload(TARGET, JsonNode.class, node -> {
            JsonNode policy = node.get("policy");
            if (policy instanceof ObjectNode p) {
                if (!p.has("capture")) p.set("capture", NullNode.getInstance());
                if (!p.has("holdValidity")) p.set("holdValidity", NullNode.getInstance());
                if (!p.has("customerActionTimeout")) p.set("customerActionTimeout", NullNode.getInstance());
            }
            return node;
        });
    }
}
