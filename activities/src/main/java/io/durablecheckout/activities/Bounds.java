package io.durablecheckout.activities;

/**
 * Length limits checked before a value reaches a bounded column, so a value that does not fit fails with a message
 * that names the column and the limit instead of a database error halfway through a batch.
 * <p>
 * The choice per column (docs/decisions.md, "Bounded inputs"): identifiers and evidence (operation and checkout ids,
 * provider references, recipients) are <em>rejected</em>: a truncated one would be a different, wrong fact, durably
 * recorded. Free text kept for people (details, reasons) is <em>clipped</em>: the full text is in the result event or
 * the provider's record.
 */
public final class Bounds {

    public static final int ID = 255;
    public static final int TENANT = 64;
    public static final int PROVIDER_REFERENCE = 255;
    public static final int RECIPIENT = 320;
    public static final int SKU = 128;
    public static final int DETAIL = 1000;
    /** A provider's next action for the customer (JSON text): evidence for the client, rejected if it does not fit. */
    public static final int NEXT_ACTION = 16_384;

    private Bounds() {
    }

    /** @return {@code value}, if it fits; otherwise a {@link PoisonInputException} naming the column */
    public static String require(String column, String value, int max) {
        if (value != null && value.length() > max) {
            throw new PoisonInputException(column + " is " + value.length() + " characters, at most " + max
                    + " fit: '" + value.substring(0, Math.min(40, value.length())) + "…'");
        }
        return value;
    }

    /** @return {@code value} cut to {@code max} characters, marked with an ellipsis where it was cut */
    public static String clip(String value, int max) {
        return value == null || value.length() <= max ? value : value.substring(0, max - 3) + "...";
    }
}
