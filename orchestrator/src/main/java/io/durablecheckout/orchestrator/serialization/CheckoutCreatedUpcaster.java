package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.CheckoutPolicy;

import java.time.Duration;

/**
 * {@code CheckoutCreatedEvent} revision 1 to 2: revision 2 records the workflow policy. A checkout created before
 * then recorded none; it is read with the defaults in force when policies were not yet recorded (the configuration
 * of the day was not written down; these are the values the code shipped with).
 */
final class CheckoutCreatedUpcaster extends FirstRevisionUpcaster {

    /** Axon's own mapper: the shapes the event store uses. */
    private static final ObjectMapper MAPPER = AxonJson.objectMapper();

    /** The shipped defaults before revision 2; fixed here, so later changes to the defaults do not reach old events. */
    static final CheckoutPolicy LEGACY = new CheckoutPolicy(1, Duration.ofSeconds(30), Duration.ofSeconds(30),
            Duration.ofSeconds(1), Duration.ofMinutes(1), 8, Duration.ofSeconds(2), Duration.ofMinutes(5), 6);

    CheckoutCreatedUpcaster() {
        super(CheckoutCreatedEvent.class);
    }

    @Override
    void upcast(ObjectNode event) {
        if (!event.hasNonNull("policy")) {
            event.set("policy", MAPPER.valueToTree(LEGACY));
        }
    }
}
