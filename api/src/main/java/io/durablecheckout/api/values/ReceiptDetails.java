package io.durablecheckout.api.values;

import java.util.List;

/**
 * What a receipt and a cancellation notice show beyond the order's SKUs and amount, fixed when the checkout is
 * created. None of it is personal data (item names and prices, the merchant's names and order reference).
 *
 * @param orderReference the merchant's own order reference (never the client's Idempotency-Key), or null
 * @param merchantName   the tenant's merchant name at creation, or null
 * @param senderName     the display name on the messages' From, or null (then the merchant name)
 * @param lines          the lines as the request gave them (names and unit prices optional), in its order
 * @param shippingMinor  a shipping line in the amount's minor units, or null; likewise {@code taxMinor} (added) and
 *                       {@code discountMinor} (subtracted)
 */
public record ReceiptDetails(String orderReference, String merchantName, String senderName, List<Line> lines,
                             Long shippingMinor, Long taxMinor, Long discountMinor) {

    public ReceiptDetails {
        lines = lines == null ? List.of() : List.copyOf(lines);
    }

    /** One line of the request: its SKU and quantity, and the display name and unit price when the request gave them. */
    public record Line(String sku, int quantity, String name, Long unitPriceMinor) {
    }
}
