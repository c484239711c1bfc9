package io.durablecheckout.activities.payments;

import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;

/**
 * Port to the payment provider. Every call names the operation it is about; implementations must never invent
 * another id, because the provider deduplicates by it and reconciliation asks under it.
 */
public interface PaymentProvider {

    AuthorizationAnswer authorize(OperationId operationId, Money amount, String paymentToken);

    /** With the merchant (tenant) the provider records and names in its notifications. */
    default AuthorizationAnswer authorize(OperationId operationId, Money amount, String paymentToken, String tenantId) {
        return authorize(operationId, amount, paymentToken);
    }

    LookupAnswer lookup(OperationId authorizationOperationId);

    /**
     * A lookup that names the lookup operation asking (sent as its Idempotency-Key, so the provider's request log
     * can tell rounds apart). A read: the key deduplicates nothing.
     */
    default LookupAnswer lookup(OperationId authorizationOperationId, OperationId lookupOperationId) {
        return lookup(authorizationOperationId);
    }

    CompensationAnswer voidAuthorization(OperationId authorizationOperationId, OperationId voidOperationId,
                                         Money amount);

    CompensationAnswer refund(OperationId authorizationOperationId, OperationId refundOperationId, Money amount);

    /**
     * Takes {@code amount} (at most the authorized amount) of the authorization, under the capture's own operation id:
     * the provider's idempotency key, the same on every retry, so a repeated call answers the recorded capture and is
     * never a second one.
     */
    CaptureAnswer capture(OperationId authorizationOperationId, OperationId captureOperationId, Money amount);

    /** How an authorization call ended, from the caller's point of view. */
    enum AuthorizationStatus {
        AUTHORIZED,
        DECLINED,
        /** The provider knows the operation but has not decided. */
        PENDING,
        /** The request may have reached the provider but no answer came back (timeout, broken connection). */
        UNKNOWN,
        /** The request was certainly not processed (503, connection refused): safe to retry. */
        UNAVAILABLE,
        /**
         * The provider needs the customer first (3-D Secure: Stripe's {@code requires_action}); its notification
         * decides later. The answer carries what the client must show ({@code nextAction}).
         */
        ACTION_REQUIRED
    }

    /** @param nextAction ACTION_REQUIRED only: what the client must show, JSON text as the provider gave it */
    record AuthorizationAnswer(AuthorizationStatus status, String reference, String detail, String nextAction) {

        public AuthorizationAnswer(AuthorizationStatus status, String reference, String detail) {
            this(status, reference, detail, null);
        }
    }

    record LookupAnswer(PaymentLookupOutcome outcome, String reference, String detail) {
    }

    /** How a capture call ended, from the caller's point of view. */
    enum CaptureStatus {
        /** Captured now, or earlier under the same capture operation id. */
        CAPTURED,
        /** Refused for good: the hold lapsed or was voided, the capture was declined, the amount is above the hold. */
        DECLINED,
        /** The request may have reached the provider but no answer came back: ask again under the same id. */
        UNKNOWN,
        /** The request was certainly not processed (503, connection refused): safe to retry. */
        UNAVAILABLE
    }

    /** @param captured what the provider took (null when not captured) */
    record CaptureAnswer(CaptureStatus status, String reference, Money captured, String detail) {
    }

    /** @param done true when voided / refunded; false is a retryable failure (the call is idempotent by its key) */
    record CompensationAnswer(boolean done, String reference, String detail) {
    }
}
