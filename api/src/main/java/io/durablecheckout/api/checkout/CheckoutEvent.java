package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;

/**
 * Facts the Checkout aggregate records: its own stream, the workflow's history. Intents (…RequestedEvent) carry the
 * lease a worker needs; they are appended in the same transaction as the transition that decided them, so the event
 * store is the outbox. Sealed: a switch over it is exhaustive, and a new event breaks the build until handled.
 */
public sealed interface CheckoutEvent permits
        CheckoutCreatedEvent,
        StockReservationRequestedEvent,
        StockReservedEvent,
        PaymentAuthorizationRequestedEvent,
        PaymentAuthorizedEvent,
        CheckoutConfirmedEvent,
        ReceiptRequestedEvent,
        ReceiptSentEvent,
        CheckoutCompletedEvent,
        CheckoutCancelledEvent,
        CheckoutCancellationRequestedEvent,
        PaymentDeclinedEvent,
        PaymentOutcomeUnknownEvent,
        PaymentReconciliationScheduledEvent,
        PaymentReconciliationRequestedEvent,
        ManualReviewRequiredEvent,
        ManualReviewResolvedEvent,
        PaymentOutcomeDisputedEvent,
        ProviderNotificationHeldEvent,
        OperatorRetryRequestedEvent,
        StockReleaseRequestedEvent,
        StockReleasedEvent,
        PaymentVoidRequestedEvent,
        PaymentVoidedEvent,
        PaymentRefundRequestedEvent,
        PaymentRefundedEvent,
        CancellationNoticeRequestedEvent,
        CancellationNoticeSentEvent,
        ActivityRetryScheduledEvent,
        ActivityLeaseExpiredEvent,
        ActivityLeaseRenewedEvent,
        ActivityLeaseDeferredEvent,
        ActivityResultRejectedEvent,
        PaymentCaptureRequestedEvent,
        PaymentCapturedEvent,
        PaymentCaptureFailedEvent,
        CaptureAwaitedEvent,
        CustomerActionRequiredEvent,
        PaymentOperationOrderedEvent {

    CheckoutId checkoutId();
}
