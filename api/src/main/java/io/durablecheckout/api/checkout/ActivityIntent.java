package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;

/** An event that asks an activity service to do one side effect under a lease. */
public sealed interface ActivityIntent permits
        StockReservationRequestedEvent, PaymentAuthorizationRequestedEvent, ReceiptRequestedEvent {

    CheckoutId checkoutId();

    Step step();

    Lease lease();
}
