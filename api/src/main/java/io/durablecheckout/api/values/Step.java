package io.durablecheckout.api.values;

/** The activities a checkout drives. The slug is part of every operation id, so it must never change. */
public enum Step {
    RESERVE_STOCK("reserve-stock"),
    AUTHORIZE_PAYMENT("authorize-payment"),
    SEND_RECEIPT("send-receipt");

    private final String slug;

    Step(String slug) {
        this.slug = slug;
    }

    public String slug() {
        return slug;
    }
}
