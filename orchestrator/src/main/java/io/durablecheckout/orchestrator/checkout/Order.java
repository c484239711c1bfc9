package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.TenantId;

import java.util.List;

/**
 * What a checkout was created with, and what its capture settled: everything a step's request needs besides its lease.
 *
 * @param toCapture what the capture asks for (the authorized amount unless the tenant's capture call named less)
 * @param captured  what a capture took ({@code null}: nothing captured); a refund returns at most this
 * @param refunded  what refunds returned so far ({@code null}: nothing)
 */
record Order(CheckoutId checkoutId, TenantId tenantId, List<LineItem> items, Money amount, String paymentToken,
             String customerEmail, Money toCapture, Money captured, Money refunded) {

    Order(CheckoutId checkoutId, TenantId tenantId, List<LineItem> items, Money amount, String paymentToken,
          String customerEmail) {
        this(checkoutId, tenantId, items, amount, paymentToken, customerEmail, amount, null, null);
    }

    Order capturing(Money requested) {
        return new Order(checkoutId, tenantId, items, amount, paymentToken, customerEmail, requested, captured, refunded);
    }

    Order captured(Money taken) {
        return new Order(checkoutId, tenantId, items, amount, paymentToken, customerEmail, toCapture, taken, refunded);
    }

    Order refunded(Money returned) {
        return new Order(checkoutId, tenantId, items, amount, paymentToken, customerEmail, toCapture, captured,
                new Money((refunded == null ? 0 : refunded.minor()) + returned.minor(), returned.currency()));
    }

    /**
     * What a refund returns: what the capture took (before capture existed, rules 2: the amount paid), less what
     * refunds returned already.
     */
    Money refundable() {
        Money taken = captured != null ? captured : amount;
        return refunded == null ? taken : new Money(taken.minor() - refunded.minor(), taken.currency());
    }
}
