package io.durablecheckout.api.activity;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;

/**
 * What an activity service reports after performing (or refusing) a side effect. Published by the service in the
 * same transaction as its own resource write, so the report exists if and only if the write does.
 * {@code operationId} and {@code fencingToken} are those of the intent the worker executed.
 * Carries its concrete type when serialized as a field (a command holding a result travels through Axon Server).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.CLASS, include = JsonTypeInfo.As.PROPERTY, property = "@type")
public sealed interface ActivityResultEvent permits
        StockReservationSucceededEvent,
        StockReservationRejectedEvent,
        StockReleaseSucceededEvent,
        PaymentAuthorizationSucceededEvent,
        PaymentAuthorizationDeclinedEvent,
        PaymentAuthorizationOutcomeUnknownEvent,
        PaymentLookupAnsweredEvent,
        PaymentVoidSucceededEvent,
        PaymentRefundSucceededEvent,
        ReceiptDeliverySucceededEvent,
        CancellationNoticeDeliverySucceededEvent,
        ActivityAttemptFailedEvent,
        StaleOwnerRejectedEvent,
        PaymentCaptureSucceededEvent,
        PaymentCaptureDeclinedEvent,
        PaymentCaptureOutcomeUnknownEvent,
        PaymentAuthorizationActionRequiredEvent {

    CheckoutId checkoutId();

    OperationId operationId();

    FencingToken fencingToken();

    Step step();
}
