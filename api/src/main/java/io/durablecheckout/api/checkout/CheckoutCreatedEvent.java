package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.TenantId;

import java.time.Instant;
import java.util.List;

/**
 * @param paymentToken the provider's reference to a vaulted payment method (never card data)
 * @param requestFingerprint hash of the client's request, so a reused Idempotency-Key with a different body is caught
 * @param policy the workflow policy fixed for this checkout when it was created (decisions read it, not configuration)
 */
public record CheckoutCreatedEvent(CheckoutId checkoutId, TenantId tenantId, List<LineItem> items, Money amount,
                                   String paymentToken, String customerEmail, String idempotencyKey,
                                   String requestFingerprint, Instant createdAt,
                                   CheckoutPolicy policy) implements CheckoutEvent {
}
