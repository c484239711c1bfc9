package io.durablecheckout.api.checkout;

/** Why a checkout ended cancelled. Every terminal state has a reason. */
public enum CancellationReason {
    OUT_OF_STOCK,
    UNKNOWN_SKU,
    PAYMENT_DECLINED,
    CUSTOMER_REQUEST,
    OPERATOR_REQUEST,
    /** The provider refused the capture for good (rules version 3 on). */
    CAPTURE_DECLINED,
    /** The authorization's hold lapsed before anyone captured it (rules version 3 on). */
    HOLD_EXPIRED,
    /** The customer did not complete the payment's authentication (3-D Secure) in time (rules version 3 on). */
    CUSTOMER_ACTION_TIMED_OUT
}
