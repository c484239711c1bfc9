package io.durablecheckout.orchestrator.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.CheckoutPolicy;
import org.axonframework.serialization.SimpleSerializedType;
import org.axonframework.serialization.upcasting.event.IntermediateEventRepresentation;
import org.axonframework.serialization.upcasting.event.SingleEventUpcaster;

import java.time.Duration;

/**
 * {@code CheckoutCreatedEvent} revision 1 to 2: revision 2 records the workflow policy. A checkout created before
 * then recorded none; it is read with the defaults in force when policies were not yet recorded (the configuration
 * of the day was not written down; these are the values the code shipped with).
 */
final class CheckoutCreatedUpcaster extends SingleEventUpcaster {

    static final String TYPE = CheckoutCreatedEvent.class.getName();
    private static final SimpleSerializedType TARGET = new SimpleSerializedType(TYPE, "2");

    /** The shipped defaults before revision 2; fixed here, so later changes to the defaults do not reach old events. */
    static final CheckoutPolicy LEGACY = new CheckoutPolicy(1, Duration.ofSeconds(30), Duration.ofSeconds(30),
            Duration.ofSeconds(1), Duration.ofMinutes(1), 8, Duration.ofSeconds(2), Duration.ofMinutes(5), 6);

    @Override
    protected boolean canUpcast(IntermediateEventRepresentation representation) {
        String revision = representation.getType().getRevision();
        return TYPE.equals(representation.getType().getName()) && (revision == null || "1".equals(revision));
    }

    @Override
    protected IntermediateEventRepresentation doUpcast(IntermediateEventRepresentation representation) {
        return representation.upcastPayload(TARGET, JsonNode.class, node -> {
            ObjectNode event = (ObjectNode) node;
            if (!event.hasNonNull("policy")) {
                event.set("policy", RecordedInputs.MAPPER.valueToTree(LEGACY));
            }
            return event;
        });
    }
}
