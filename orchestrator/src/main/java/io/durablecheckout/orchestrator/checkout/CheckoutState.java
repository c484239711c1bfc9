package io.durablecheckout.orchestrator.checkout;

import java.util.Locale;

/** The states of the seed's diagram, plus the in-between states of compensation. Exposed in lower snake case. */
public enum CheckoutState {
    CREATED(false),
    STOCK_RESERVED(false),
    PAYMENT_AUTHORIZED(false),
    CONFIRMED(false),
    /** The receipt is sent; the payment waits to be captured by the tenant (deferred capture) or its hold lapses. */
    AWAITING_CAPTURE(false),
    CAPTURE_PENDING(false),
    COMPLETED(true),
    PAYMENT_DECLINED(false),
    PAYMENT_UNKNOWN(false),
    RECONCILIATION_PENDING(false),
    /** The payment waits for the customer's authentication (3-D Secure): the client shows the provider's next action. */
    CUSTOMER_ACTION_REQUIRED(false),
    MANUAL_REVIEW(false),
    VOID_PENDING(false),
    REFUND_REQUESTED(false),
    REFUND_CONFIRMED(false),
    STOCK_RELEASE_PENDING(false),
    CANCELLATION_NOTICE_PENDING(false),
    CANCELLED(true);

    private final boolean terminal;

    CheckoutState(boolean terminal) {
        this.terminal = terminal;
    }

    /** Terminal: nothing is pending. A completed checkout can still be cancelled (refund), a cancelled one not. */
    public boolean isTerminal() {
        return terminal;
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
