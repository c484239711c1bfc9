package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;

/**
 * An event that asks an activity service to do one side effect under a lease. A retry or a new owner gets a new
 * intent with the same operation id and the next fencing token.
 */
public sealed interface ActivityIntent permits
        StockReservationRequestedEvent, PaymentAuthorizationRequestedEvent, PaymentReconciliationRequestedEvent,
        ReceiptRequestedEvent, StockReleaseRequestedEvent, PaymentVoidRequestedEvent, PaymentRefundRequestedEvent,
        CancellationNoticeRequestedEvent, PaymentCaptureRequestedEvent {

    CheckoutId checkoutId();

    TenantId tenantId();

    Step step();

    Lease lease();
}
