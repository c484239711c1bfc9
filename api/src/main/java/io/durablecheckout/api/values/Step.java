package io.durablecheckout.api.values;

/**
 * The activities a checkout drives, forward steps and compensations, and the activity service that performs each (its
 * event processor's name). The slug is part of every operation id, so it must never change once histories exist.
 */
public enum Step {
    RESERVE_STOCK("reserve-stock", false, "inventory"),
    AUTHORIZE_PAYMENT("authorize-payment", false, "payments"),
    /** A lookup at the provider under the authorization's original operation id; never a new authorization. */
    RECONCILE_PAYMENT("reconcile-payment", false, "payments"),
    SEND_RECEIPT("send-receipt", false, "receipts"),
    /** Takes the authorized money (rules version 3 on); a new operation of its own, never a second authorization. */
    CAPTURE_PAYMENT("capture-payment", false, "payments"),
    RELEASE_STOCK("release-stock", true, "inventory"),
    VOID_PAYMENT("void-payment", true, "payments"),
    REFUND_PAYMENT("refund-payment", true, "payments"),
    SEND_CANCELLATION_NOTICE("send-cancellation-notice", true, "receipts");

    private final String slug;
    private final boolean compensation;
    private final String service;

    Step(String slug, boolean compensation, String service) {
        this.slug = slug;
        this.compensation = compensation;
        this.service = service;
    }

    /** The activity service that performs this step: the name of its event processor ({@code payments}, …). */
    public String service() {
        return service;
    }

    public String slug() {
        return slug;
    }

    public boolean isCompensation() {
        return compensation;
    }
}
