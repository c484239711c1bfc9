package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import org.axonframework.serialization.Revision;

@Revision("1")
public record ReceiptRequestedEvent(CheckoutId checkoutId, TenantId tenantId, String customerEmail, Money amount,
                                    Lease lease) implements CheckoutEvent, ActivityIntent {
    @Override
    public Step step() {
        return Step.SEND_RECEIPT;
    }
}
