package io.durablecheckout.api.values;

import java.util.Locale;

/**
 * When a checkout's authorized payment is captured (the money taken), chosen per checkout and recorded in its first
 * event, so a history replays under the mode it was decided with.
 */
public enum CaptureMode {
    /** Captured as soon as the order is confirmed and the receipt sent (the default). */
    ON_CONFIRMATION,
    /** Held until the tenant calls {@code POST /api/v1/checkouts/{id}/capture}, typically as it ships. */
    DEFERRED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The mode named {@code wire} ("on_confirmation", "deferred"), or {@code null} if none is. */
    public static CaptureMode fromWire(String wire) {
        for (CaptureMode m : values()) {
            if (m.wireName().equals(wire)) {
                return m;
            }
        }
        return null;
    }
}
