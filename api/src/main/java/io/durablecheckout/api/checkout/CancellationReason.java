package io.durablecheckout.api.checkout;

/** Why a checkout ended cancelled. Every terminal state has a reason. */
public enum CancellationReason {
    OUT_OF_STOCK,
    UNKNOWN_SKU,
    PAYMENT_DECLINED,
    CUSTOMER_REQUEST,
    OPERATOR_REQUEST
}
