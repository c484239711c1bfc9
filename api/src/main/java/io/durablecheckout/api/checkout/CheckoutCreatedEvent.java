package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.ReceiptDetails;
import io.durablecheckout.api.values.TenantId;

import java.time.Instant;
import java.util.List;
import org.axonframework.serialization.Revision;

/**
 * @param paymentToken the provider's reference to a vaulted payment method (never card data)
 * @param requestFingerprint hash of the client's request, so a reused Idempotency-Key with a different body is caught
 * @param policy the workflow policy fixed for this checkout when it was created (decisions read it, not configuration);
 *               added in revision 2 (revision 1 events are read with the policy version 1 defaults, an upcaster)
 * @param receipt what the receipt shows beyond SKUs and amount (names, prices, merchant, order reference); added in
 *                revision 3 (older events are read with null: receipts then show SKUs only); revision 4's policy
 *                adds the capture mode and hold validity (older: null, read by rules before capture never)
 */
@Revision("4")
public record CheckoutCreatedEvent(CheckoutId checkoutId, TenantId tenantId, List<LineItem> items, Money amount,
                                   String paymentToken, String customerEmail, String idempotencyKey,
                                   String requestFingerprint, Instant createdAt,
                                   CheckoutPolicy policy, ReceiptDetails receipt) implements CheckoutEvent {

    /** Without receipt details (a checkout of revision 2, or one built by a test). */
    public CheckoutCreatedEvent(CheckoutId checkoutId, TenantId tenantId, List<LineItem> items, Money amount,
                                String paymentToken, String customerEmail, String idempotencyKey,
                                String requestFingerprint, Instant createdAt, CheckoutPolicy policy) {
        this(checkoutId, tenantId, items, amount, paymentToken, customerEmail, idempotencyKey, requestFingerprint,
                createdAt, policy, null);
    }
}
