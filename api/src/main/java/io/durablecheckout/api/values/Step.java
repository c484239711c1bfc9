package io.durablecheckout.api.values;

/**
 * The activities a checkout drives, forward steps and compensations. The slug is part of every operation id, so it
 * must never change once histories exist.
 */
public enum Step {
    RESERVE_STOCK("reserve-stock", false),
    AUTHORIZE_PAYMENT("authorize-payment", false),
    /** A lookup at the provider under the authorization's original operation id; never a new authorization. */
    RECONCILE_PAYMENT("reconcile-payment", false),
    SEND_RECEIPT("send-receipt", false),
    /** Takes the authorized money (rules version 3 on); a new operation of its own, never a second authorization. */
    CAPTURE_PAYMENT("capture-payment", false),
    RELEASE_STOCK("release-stock", true),
    VOID_PAYMENT("void-payment", true),
    REFUND_PAYMENT("refund-payment", true),
    SEND_CANCELLATION_NOTICE("send-cancellation-notice", true);

    private final String slug;
    private final boolean compensation;

    Step(String slug, boolean compensation) {
        this.slug = slug;
        this.compensation = compensation;
    }

    public String slug() {
        return slug;
    }

    public boolean isCompensation() {
        return compensation;
    }
}
