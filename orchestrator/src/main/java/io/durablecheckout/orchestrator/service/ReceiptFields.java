package io.durablecheckout.orchestrator.service;

import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.ReceiptDetails;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.orchestrator.http.TextLimits;
import org.springframework.http.HttpStatus;

import java.util.ArrayList;
import java.util.List;

/**
 * The request's optional receipt fields: each line's display name and unit price, shipping, tax and discount lines,
 * the merchant's order reference. Malformed values are the request's errors (400); prices that do not add up to the
 * amount are refused with 422, naming the fields. Prices are all or nothing: once any line has a price (or shipping,
 * tax or a discount is given), every line needs one, so the receipt's lines always add up to what was authorized.
 */
final class ReceiptFields {

    static final int NAME_MAX = 200;
    static final int ORDER_REFERENCE_MAX = 100;

    private ReceiptFields() {
    }

    /** The receipt's lines and fields (merchant not yet known), errors added for malformed ones. */
    static ReceiptDetails read(CheckoutRequest r, String idempotencyKey, List<String> errors) {
        List<ReceiptDetails.Line> lines = new ArrayList<>();
        boolean priced = r.shipping() != null || r.tax() != null || r.discount() != null;
        if (r.items() != null) {
            for (CheckoutRequest.Item item : r.items()) priced |= item != null && item.unitPrice() != null;
        }
        if (r.items() != null && r.items().size() <= CheckoutRequestValidator.MAX_ITEMS) {
            for (int i = 0; i < r.items().size(); i++) {
                CheckoutRequest.Item item = r.items().get(i);
                if (item == null) continue; // reported by the validator
                String at = "items[" + i + "]";
                String name = TextLimits.text(item.name(), at + ".name", NAME_MAX, false, errors);
                if (item.name() != null && item.name().isBlank()) errors.add(at + ".name: must not be blank");
                Long price = item.unitPrice();
                if (price == null && priced) {
                    errors.add(at + ".unitPrice: required once any line has a price or shipping, tax or discount is "
                            + "given (minor units of the amount's currency)");
                } else if (price != null) {
                    minor(price, at + ".unitPrice", 1, errors);
                }
                lines.add(new ReceiptDetails.Line(item.sku(), item.quantity() == null ? 0 : item.quantity(), name,
                        price));
            }
        }
        minor(r.shipping(), "shipping", 0, errors);
        minor(r.tax(), "tax", 0, errors);
        minor(r.discount(), "discount", 0, errors);
        String reference = TextLimits.text(r.orderReference(), "orderReference", ORDER_REFERENCE_MAX, false, errors);
        if (r.orderReference() != null && r.orderReference().isBlank()) {
            errors.add("orderReference: must not be blank");
        }
        if (reference != null && reference.equals(idempotencyKey)) {
            errors.add("orderReference: must not be the Idempotency-Key (a secret of your retries; it would be "
                    + "printed on the customer's receipt)");
        }
        return new ReceiptDetails(reference, null, null, lines, r.shipping(), r.tax(), r.discount());
    }

    private static void minor(Long value, String field, long least, List<String> errors) {
        if (value == null) return;
        if (value < least) {
            errors.add(field + ": " + (least > 0 ? "must be positive" : "must not be negative") + ", was " + value);
        } else if (value > CheckoutRequestValidator.MAX_AMOUNT_MINOR) {
            errors.add(field + ": at most " + CheckoutRequestValidator.MAX_AMOUNT_MINOR);
        }
    }

    /** When the lines have prices: lines + shipping + tax - discount must be the amount, else 422 naming the fields. */
    static void requireTotal(ReceiptDetails details, Money amount) {
        if (details.lines().isEmpty() || details.lines().get(0).unitPriceMinor() == null) return;
        long lines = 0;
        for (ReceiptDetails.Line line : details.lines()) lines += line.unitPriceMinor() * line.quantity();
        long total = lines + orZero(details.shippingMinor()) + orZero(details.taxMinor())
                - orZero(details.discountMinor());
        if (total != amount.minor()) {
            List<String> errors = List.of("amount.minor: " + amount.minor() + ", but the receipt's lines add up to "
                            + total + " (items[].unitPrice x items[].quantity = " + lines + ", + shipping "
                            + orZero(details.shippingMinor()) + " + tax " + orZero(details.taxMinor()) + " - discount "
                            + orZero(details.discountMinor()) + ")");
            throw new ApiProblemException(HttpStatus.UNPROCESSABLE_CONTENT, "receipt-total-mismatch",
                    "Prices do not add up to the amount", String.join("; ", errors), errors);
        }
    }

    static long orZero(Long value) {
        return value == null ? 0 : value;
    }

    /** Appended to the request's canonical form only when a receipt field was given (older fingerprints stay valid). */
    static String canonical(ReceiptDetails d) {
        if (d == null) return "";
        boolean any = d.orderReference() != null || d.shippingMinor() != null || d.taxMinor() != null
                || d.discountMinor() != null
                || d.lines().stream().anyMatch(l -> l.name() != null || l.unitPriceMinor() != null);
        if (!any) return "";
        StringBuilder sb = new StringBuilder("\nreceipt\u0000").append(d.orderReference()).append('\u0000')
                .append(d.shippingMinor()).append('\u0000').append(d.taxMinor()).append('\u0000')
                .append(d.discountMinor());
        d.lines().forEach(l -> sb.append('\n').append(l.sku()).append('\u0000').append(l.quantity()).append('\u0000')
                .append(l.name()).append('\u0000').append(l.unitPriceMinor()));
        return sb.toString();
    }
}
