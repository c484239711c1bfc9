package io.durablecheckout.orchestrator.faults;

import java.util.Arrays;
import java.util.Locale;

/**
 * The step boundaries at which the process can be killed deliberately ({@code checkout.fault-injection.crash-at}).
 * Each names what is durable at that moment and what is not.
 */
public enum CrashPoint {
    /** An intent (with its lease deadline) is committed; no worker has seen it. */
    INTENT_APPENDED,
    /** A compensation's intent is committed; the compensation has not been performed. */
    COMPENSATION_REQUESTED,
    /** An activity's result event is committed; the saga has not recorded it on the checkout. */
    RESULT_APPENDED,
    /** Stock was reserved or released in the worker's transaction; nothing is committed. */
    INVENTORY_EFFECT,
    /** The payment provider was called (authorize, void or refund) and answered; our record is not committed. */
    PAYMENT_EFFECT,
    /** The provider captured (or refused, or timed out on) a capture; our record is not committed. */
    CAPTURE_EFFECT,
    /** The provider answered a reconciliation lookup; the answer is not recorded. */
    RECONCILIATION_LOOKUP,
    /** The message was handed to the mail service (MailPort); our record that it was sent is not committed. */
    RECEIPT_EFFECT,
    /** The saga's command appended the checkout's next events in the saga's transaction; not committed. */
    SAGA_RECORDED,
    /** The read model was updated; not committed. */
    PROJECTION_UPDATE,
    /** A lease-expiry deadline ran and granted a new lease; not committed. */
    LEASE_DEADLINE,
    /** A reconciliation deadline ran and asked for a lookup; not committed. */
    RECONCILIATION_DEADLINE,
    /** Half-way through a multi-event batch of a processor: some events handled, none committed. */
    MID_BATCH,
    /** A checkout was created and committed; the HTTP response has not been sent. */
    HTTP_ACCEPTED;

    public String slug() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static CrashPoint parse(String value) {
        return Arrays.stream(values()).filter(p -> p.slug().equals(value) || p.name().equalsIgnoreCase(value))
                .findFirst().orElseThrow(() -> new IllegalArgumentException("unknown crash point '" + value
                        + "'; one of " + Arrays.stream(values()).map(CrashPoint::slug).toList()));
    }
}
