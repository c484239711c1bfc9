package io.durablecheckout.orchestrator.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.TenantId;

import java.util.List;

/** What a checkout was created with: everything a step's request needs besides its lease. */
record Order(CheckoutId checkoutId, TenantId tenantId, List<LineItem> items, Money amount, String paymentToken,
             String customerEmail) {
}
