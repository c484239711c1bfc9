package io.durablecheckout.activities.receipts;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.ReceiptDetails;
import io.durablecheckout.api.values.Sku;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import io.durablecheckout.api.values.CaptureMode;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Snapshots of the receipt and the cancellation notice, text and HTML (issue 52, Build 2): items by name with unit
 * prices and line totals, shipping, tax and a discount, the total, what happened to the money and when, the merchant's
 * order reference and name; every value from the request escaped in HTML. A change to a text shows as a diff of these
 * files; regenerate with {@code -Dreceipts.snapshots.write=true} and review the diff.
 */
class ReceiptTextsTest {

    private static final Path SNAPSHOTS = Path.of("src/test/resources/receipts");
    private static final CheckoutId ID = new CheckoutId("co_7d1e0c8a-0000-4000-8000-000000000001");
    private static final ReceiptDetails DETAILS = new ReceiptDetails("ORD-2026-0042", "Ada's <Tea> & Co.",
            "Ada's Tea Shop", List.of(
                    new ReceiptDetails.Line("TEA-001", 2, "Darjeeling <first flush> 100 g", 1_250L),
                    new ReceiptDetails.Line("MUG-7", 1, null, 1_999L)),
            495L, 380L, 500L);
    private static final ReceiptTexts.Order ORDER = new ReceiptTexts.Order(ID,
            List.of(new LineItem(new Sku("TEA-001"), 2), new LineItem(new Sku("MUG-7"), 1)), new Money(4_874, "EUR"),
            DETAILS, Instant.parse("2026-12-07T09:15:30Z"), null, null);

    @Test
    void theReceiptShowsItemsPricesTheTotalTheAuthorizationAndTheReference() throws IOException {
        OutboundMessage receipt = ReceiptTexts.receipt("ada@example.com", ORDER);
        assertThat(receipt.subject()).isEqualTo("Your order ORD-2026-0042 at Ada's <Tea> & Co. is confirmed");
        assertThat(receipt.fromName()).isEqualTo("Ada's Tea Shop");
        assertThat(receipt.inReplyTo()).isNull();
        snapshot("receipt.txt", receipt.body());
        snapshot("receipt.html", receipt.html());
        // authorized, never "charged": capture is not built
        assertThat(receipt.body()).contains("authorized for 48.74 EUR on 2026-12-07 09:15 UTC")
                .contains("nothing has been charged yet").doesNotContainIgnoringCase("you were charged");
    }

    @Test
    void theNoticeAfterARefundSaysWhatWasRefundedAndWhenAndThreadsUnderTheReceipt() throws IOException {
        ReceiptTexts.Order refunded = new ReceiptTexts.Order(ID, ORDER.items(), ORDER.amount(), DETAILS,
                ORDER.authorizedAt(), Instant.parse("2026-12-08T14:02:00Z"), null);
        OutboundMessage notice = ReceiptTexts.cancellationNotice("ada@example.com", refunded);
        assertThat(notice.subject()).isEqualTo("Your order ORD-2026-0042 at Ada's <Tea> & Co. was cancelled");
        assertThat(notice.inReplyTo()).isEqualTo(new OperationId(ID.value() + "/send-receipt"));
        snapshot("cancellation-notice.txt", notice.body());
        snapshot("cancellation-notice.html", notice.html());
        assertThat(notice.body()).contains("Refund of 48.74 EUR confirmed on 2026-12-08 14:02 UTC")
                .contains("you were not charged").doesNotContain("being returned");
    }

    @Test
    void capturedOnConfirmationTheReceiptSaysWhatWasChargedAndWhen() throws IOException {
        ReceiptTexts.Order captured = new ReceiptTexts.Order(ID, ORDER.items(), ORDER.amount(), DETAILS,
                ORDER.authorizedAt(), null, null, CaptureMode.ON_CONFIRMATION, ORDER.amount(),
                Instant.parse("2026-12-07T09:15:32Z"));
        OutboundMessage receipt = ReceiptTexts.receipt("ada@example.com", captured);
        snapshot("receipt-captured.txt", receipt.body());
        assertThat(receipt.body()).contains("Your payment method was charged 48.74 EUR on 2026-12-07 09:15 UTC.")
                .doesNotContain("hold").doesNotContain("nothing has been charged");
    }

    @Test
    void aDeferredCaptureSReceiptSaysTheCardIsChargedOnShipment() {
        ReceiptTexts.Order deferred = new ReceiptTexts.Order(ID, ORDER.items(), ORDER.amount(), DETAILS,
                ORDER.authorizedAt(), null, null, CaptureMode.DEFERRED, null, null);
        assertThat(ReceiptTexts.receipt("ada@example.com", deferred).body())
                .contains("authorized for 48.74 EUR on 2026-12-07 09:15 UTC. It is charged when your order ships");
    }

    @Test
    void theNoticeAfterARefundOfACapturedPaymentSaysTheMoneyReturns() {
        ReceiptTexts.Order refunded = new ReceiptTexts.Order(ID, ORDER.items(), ORDER.amount(), DETAILS,
                ORDER.authorizedAt(), Instant.parse("2026-12-08T14:02:00Z"), null, CaptureMode.ON_CONFIRMATION,
                new Money(4_000, "EUR"), Instant.parse("2026-12-07T09:15:32Z"));
        assertThat(ReceiptTexts.cancellationNotice("ada@example.com", refunded).body())
                .contains("Refund of 40.00 EUR confirmed on 2026-12-08 14:02 UTC. The money you were charged on "
                        + "2026-12-07 09:15 UTC returns to your payment method")
                .doesNotContain("you were not charged");
    }

    @Test
    void theNoticeAfterAVoidSaysNothingWasCharged() {
        ReceiptTexts.Order voided = new ReceiptTexts.Order(ID, ORDER.items(), ORDER.amount(), DETAILS,
                ORDER.authorizedAt(), null, Instant.parse("2026-12-07T10:00:00Z"));
        assertThat(ReceiptTexts.cancellationNotice("ada@example.com", voided).body())
                .contains("The authorization of 48.74 EUR was released on 2026-12-07 10:00 UTC. You were not charged.")
                .doesNotContain("refunded");
    }

    @Test
    void anOrderWithoutDetailsShowsItsSkusAndTheCheckoutIdAndAZeroDecimalCurrencyHasNoCents() {
        OutboundMessage receipt = ReceiptTexts.receipt("ada@example.com", new ReceiptTexts.Order(ID,
                List.of(new LineItem(new Sku("SKU-0001"), 3)), new Money(1_200, "JPY"), null, null, null, null));
        assertThat(receipt.body()).contains("3 x SKU-0001").contains("Order reference: " + ID.value())
                .contains("1200 JPY").doesNotContain("Checkout: ");
        assertThat(receipt.fromName()).isNull();
        assertThat(receipt.subject()).isEqualTo("Your order " + ID.value() + " is confirmed");
    }

    private static void snapshot(String name, String actual) throws IOException {
        Path file = SNAPSHOTS.resolve(name);
        if (Boolean.getBoolean("receipts.snapshots.write")) {
            Files.writeString(file, actual, StandardCharsets.UTF_8);
        }
        assertThat(actual).as("%s differs from its snapshot; regenerate with -Dreceipts.snapshots.write=true and "
                + "review the diff", name).isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
    }
}
