package io.durablecheckout.activities.receipts;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.ReceiptDetails;
import io.durablecheckout.api.values.Step;
import org.springframework.web.util.HtmlUtils;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import io.durablecheckout.api.values.CaptureMode;

import java.util.List;
import java.util.Locale;

/**
 * The receipt and the cancellation notice, as plain text and HTML (every value from the request escaped), from what the
 * checkout's history says. They say only what happened: captured on confirmation, the receipt (sent after the capture)
 * says what was charged and when; with a deferred capture it says the amount is authorized and charged when the order
 * ships; a checkout from before capture was a step (rules 2) was only ever authorized. The notice says what was
 * refunded (money taken and returned) or released (a hold, nothing taken), and when, once it was confirmed.
 */
final class ReceiptTexts {

    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private ReceiptTexts() {
    }

    /**
     * What the checkout's history says about its order and money.
     *
     * @param details      null for a checkout created before receipts had details (then SKUs and the amount only)
     * @param authorizedAt when the payment was authorized (null: not known)
     * @param refundedAt   when the refund was confirmed, {@code voidedAt} when the authorization was released
     * @param capture      the checkout's capture mode (null: rules before capture, only ever authorized)
     * @param captured     what a capture took ({@code capturedAt}: when), null while nothing is captured
     */
    record Order(CheckoutId checkoutId, List<LineItem> items, Money amount, ReceiptDetails details,
                 Instant authorizedAt, Instant refundedAt, Instant voidedAt, CaptureMode capture, Money captured,
                 Instant capturedAt) {

        Order(CheckoutId checkoutId, List<LineItem> items, Money amount, ReceiptDetails details, Instant authorizedAt,
              Instant refundedAt, Instant voidedAt) {
            this(checkoutId, items, amount, details, authorizedAt, refundedAt, voidedAt, null, null, null);
        }
    }

    private record Row(String label, String unit, String total) {
    }

    static OutboundMessage receipt(String recipient, Order o) {
        String merchant = merchant(o);
        String subject = "Your order " + reference(o) + (merchant == null ? "" : " at " + merchant) + " is confirmed";
        List<String> text = new ArrayList<>();
        text.add(sentence("Thank you for your order" + (merchant == null ? "" : " at " + merchant)));
        String payment;
        if (o.captured() != null) {
            payment = "Your payment method was charged " + money(o.captured())
                    + (o.capturedAt() == null ? "" : " on " + WHEN.format(o.capturedAt())) + ".";
        } else if (o.capture() == CaptureMode.DEFERRED) {
            payment = "Your payment method has been authorized for " + money(o.amount())
                    + (o.authorizedAt() == null ? "" : " on " + WHEN.format(o.authorizedAt()))
                    + ". It is charged when your order ships; until then this is a hold on the amount.";
        } else {
            payment = "Your payment method has been authorized for " + money(o.amount())
                    + (o.authorizedAt() == null ? "" : " on " + WHEN.format(o.authorizedAt()))
                    + ". This is a hold on the amount; nothing has been charged yet.";
        }
        return message(recipient, subject, text, o, payment, null);
    }

    static OutboundMessage cancellationNotice(String recipient, Order o) {
        String merchant = merchant(o);
        String subject = "Your order " + reference(o) + (merchant == null ? "" : " at " + merchant) + " was cancelled";
        List<String> text = new ArrayList<>();
        text.add(sentence("Your order" + (merchant == null ? "" : " at " + merchant) + " was cancelled"));
        String money;
        if (o.refundedAt() != null && o.captured() != null) {
            money = "Refund of " + money(o.captured()) + " confirmed on " + WHEN.format(o.refundedAt())
                    + ". The money you were charged" + (o.capturedAt() == null ? "" : " on " + WHEN.format(o.capturedAt()))
                    + " returns to your payment method; banks usually show it within 5 to 10 business days.";
        } else if (o.refundedAt() != null) {
            // before capture was a step (rules 2) a refund released a hold: nothing had been taken
            money = "Refund of " + money(o.amount()) + " confirmed on " + WHEN.format(o.refundedAt())
                    + ". Only an authorization (a hold) had been placed, so you were not charged; the hold is released.";
        } else if (o.voidedAt() != null) {
            money = "The authorization of " + money(o.amount()) + " was released on " + WHEN.format(o.voidedAt())
                    + ". You were not charged.";
        } else {
            money = "You were not charged.";
        }
        return message(recipient, subject, text, o, money, OperationId.of(o.checkoutId(), Step.SEND_RECEIPT));
    }

    private static OutboundMessage message(String recipient, String subject, List<String> intro, Order o,
                                           String money, OperationId inReplyTo) {
        List<Row> rows = rows(o);
        StringBuilder text = new StringBuilder();
        intro.forEach(line -> text.append(line).append('\n'));
        text.append('\n').append("Order reference: ").append(reference(o)).append('\n');
        if (!reference(o).equals(o.checkoutId().value())) {
            text.append("Checkout: ").append(o.checkoutId().value()).append('\n');
        }
        text.append('\n');
        for (Row row : rows) {
            text.append(String.format(Locale.ROOT, "  %-44s %16s %16s%n", row.label(), row.unit(), row.total()));
        }
        text.append(String.format(Locale.ROOT, "  %-44s %16s %16s%n", "Total", "", money(o.amount())));
        text.append('\n').append(money).append('\n');
        String merchant = merchant(o);
        if (merchant != null) text.append('\n').append(merchant).append('\n');

        StringBuilder html = new StringBuilder("<html><body>");
        intro.forEach(line -> html.append("<p>").append(esc(line)).append("</p>"));
        html.append("<p>Order reference: <strong>").append(esc(reference(o))).append("</strong>");
        if (!reference(o).equals(o.checkoutId().value())) {
            html.append("<br>Checkout: ").append(esc(o.checkoutId().value()));
        }
        html.append("</p><table><tr><th>Item</th><th>Unit price</th><th>Amount</th></tr>");
        for (Row row : rows) {
            html.append("<tr><td>").append(esc(row.label())).append("</td><td>").append(esc(row.unit()))
                    .append("</td><td>").append(esc(row.total())).append("</td></tr>");
        }
        html.append("<tr><th>Total</th><td></td><td><strong>").append(esc(money(o.amount())))
                .append("</strong></td></tr></table><p>").append(esc(money)).append("</p>");
        if (merchant != null) html.append("<p>").append(esc(merchant)).append("</p>");
        html.append("</body></html>");
        return new OutboundMessage(recipient, subject, text.toString(), html.toString(),
                o.details() == null ? null : o.details().senderName(), inReplyTo);
    }

    /** The lines as the request gave them (names and prices when given), then shipping, tax and discount. */
    private static List<Row> rows(Order o) {
        List<Row> rows = new ArrayList<>();
        ReceiptDetails d = o.details();
        String currency = o.amount() == null ? null : o.amount().currency();
        if (d == null || d.lines().isEmpty()) {
            for (LineItem line : o.items()) {
                rows.add(new Row(line.quantity() + " x " + line.sku().value(), "", ""));
            }
            return rows;
        }
        for (ReceiptDetails.Line line : d.lines()) {
            String label = line.quantity() + " x " + (line.name() != null ? line.name() + " (" + line.sku() + ")"
                    : line.sku());
            Long unit = line.unitPriceMinor();
            rows.add(new Row(label, unit == null ? "" : money(unit, currency),
                    unit == null ? "" : money(unit * line.quantity(), currency)));
        }
        if (d.shippingMinor() != null) rows.add(new Row("Shipping", "", money(d.shippingMinor(), currency)));
        if (d.taxMinor() != null) rows.add(new Row("Tax", "", money(d.taxMinor(), currency)));
        if (d.discountMinor() != null) rows.add(new Row("Discount", "", money(-d.discountMinor(), currency)));
        return rows;
    }

    /** The merchant's order reference when the request gave one, else the checkout id. */
    static String reference(Order o) {
        return o.details() != null && o.details().orderReference() != null ? o.details().orderReference()
                : o.checkoutId().value();
    }

    private static String merchant(Order o) {
        return o.details() == null ? null : o.details().merchantName();
    }

    static String money(Money amount) {
        return amount == null ? "n/a" : money(amount.minor(), amount.currency());
    }

    /** In the currency's own decimals (2 for EUR, 0 for JPY). */
    private static String money(long minor, String currency) {
        int digits = 2;
        try {
            digits = Math.max(0, java.util.Currency.getInstance(currency).getDefaultFractionDigits());
        } catch (IllegalArgumentException | NullPointerException e) {
            // not an ISO code the JDK knows: two decimals
        }
        return java.math.BigDecimal.valueOf(minor, digits).toPlainString() + " " + currency;
    }

    private static String sentence(String s) {
        return s.endsWith(".") ? s : s + ".";
    }

    private static String esc(String s) {
        return HtmlUtils.htmlEscape(s);
    }
}
