package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.TenantId;

import java.time.Instant;
import java.util.List;
import org.axonframework.serialization.Revision;

/**
 * @param paymentToken the provider's reference to a vaulted payment method (never card data)
 * @param requestFingerprint hash of the client's request, so a reused Idempotency-Key with a different body is caught
 * @param policy the workflow policy fixed for this checkout when it was created (decisions read it, not configuration);
 *               added in revision 2 (revision 1 events are read with the policy version 1 defaults, an upcaster)
 */
@Revision("2")
public record CheckoutCreatedEvent(CheckoutId checkoutId, TenantId tenantId, List<LineItem> items, Money amount,
                                   String paymentToken, String customerEmail, String idempotencyKey,
                                   String requestFingerprint, Instant createdAt,
                                   CheckoutPolicy policy) implements CheckoutEvent {
}
