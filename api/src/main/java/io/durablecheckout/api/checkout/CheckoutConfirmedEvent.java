package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import org.axonframework.serialization.Revision;

import java.time.Instant;

/**
 * The order is confirmed: stock is held and payment authorized. Decided by the aggregate, not a side effect.
 *
 * @param holdExpiresAt when the authorization's hold lapses unless captured (rules version 3 on; revision 2: older
 *                      events are read with {@code null})
 */
@Revision("2")
public record CheckoutConfirmedEvent(CheckoutId checkoutId, Instant holdExpiresAt) implements CheckoutEvent {

    /** A confirmation under rules without a capture step. */
    public CheckoutConfirmedEvent(CheckoutId checkoutId) {
        this(checkoutId, null);
    }
}
