package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import org.axonframework.serialization.SimpleSerializedType;
import org.axonframework.serialization.upcasting.event.IntermediateEventRepresentation;
import org.axonframework.serialization.upcasting.event.SingleEventUpcaster;

/**
 * {@code CheckoutCreatedEvent} revision 2 to 3: revision 3 records the receipt's details (item names and prices, the
 * merchant, the order reference). A checkout created before then recorded none: read with {@code receipt: null}, so
 * its receipt shows SKUs and the amount, as it did. Runs after {@link CheckoutCreatedUpcaster} (1 to 2).
 */
final class CheckoutCreatedReceiptUpcaster extends SingleEventUpcaster {

    private static final String TYPE = CheckoutCreatedEvent.class.getName();
    private static final SimpleSerializedType TARGET = new SimpleSerializedType(TYPE, "3");

    @Override
    protected boolean canUpcast(IntermediateEventRepresentation representation) {
        return TYPE.equals(representation.getType().getName()) && "2".equals(representation.getType().getRevision());
    }

    @Override
    protected IntermediateEventRepresentation doUpcast(IntermediateEventRepresentation representation) {
        return representation.upcastPayload(TARGET, JsonNode.class, node -> {
            if (!node.has("receipt")) ((ObjectNode) node).set("receipt", NullNode.getInstance());
            return node;
        });
    }
}
