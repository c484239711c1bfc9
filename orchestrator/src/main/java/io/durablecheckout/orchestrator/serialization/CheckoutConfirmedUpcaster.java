package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durablecheckout.api.checkout.CheckoutConfirmedEvent;

/** {@code CheckoutConfirmedEvent} 1 to 2: revision 2 says when the hold lapses; before capture there was none. */
final class CheckoutConfirmedUpcaster extends FirstRevisionUpcaster {

    CheckoutConfirmedUpcaster() {
        super(CheckoutConfirmedEvent.class);
    }

    @Override
    void upcast(ObjectNode event) {
        if (!event.has("holdExpiresAt")) event.set("holdExpiresAt", NullNode.getInstance());
    }
}
