package io.durablecheckout.api.command;

import io.durablecheckout.api.values.CheckoutId;

/** Commands handled by the Checkout aggregate. Each carries the time it was decided at, so the aggregate reads no clock. */
public sealed interface CheckoutCommand permits StartCheckoutCommand, RecordActivityResultCommand, RequestCancellationCommand,
        ResolveManualReviewCommand, RetryActivityCommand, RecordProviderNotificationCommand, RenewLeaseCommand,
        CapturePaymentCommand, RefundPaymentCommand, SettleHoldCommand, RearmOverdueTimersCommand {
    CheckoutId checkoutId();
}
