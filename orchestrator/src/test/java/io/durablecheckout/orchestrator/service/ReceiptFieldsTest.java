package io.durablecheckout.orchestrator.service;

import io.durablecheckout.orchestrator.http.ApiProblemException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Issue 52, Build 2: the request's optional receipt fields, validated; prices checked against the amount. */
class ReceiptFieldsTest {

    private static final CheckoutRequest.Amount AMOUNT = new CheckoutRequest.Amount(2_995L, "EUR");

    private static CheckoutRequest request(List<CheckoutRequest.Item> items, String reference, Long shipping, Long tax,
                                           Long discount) {
        return new CheckoutRequest(items, AMOUNT, "tok_approve", "a@example.com", reference, shipping, tax, discount);
    }

    @Test
    void pricedLinesWithShippingTaxAndDiscountThatAddUpAreKeptInTheRequestsOrder() {
        CheckoutRequestValidator.Valid valid = CheckoutRequestValidator.validate(request(List.of(
                new CheckoutRequest.Item("TEA-1", 2, "Sencha 100 g", 1_000L),
                new CheckoutRequest.Item("MUG-1", 1, null, 500L)), "ORD-1", 495L, 200L, 200L), "key-1");
        assertThat(valid.receipt().orderReference()).isEqualTo("ORD-1");
        assertThat(valid.receipt().lines()).extracting(l -> l.sku() + "/" + l.quantity() + "/" + l.name() + "/"
                + l.unitPriceMinor()).containsExactly("TEA-1/2/Sencha 100 g/1000", "MUG-1/1/null/500");
        assertThat(valid.receipt().shippingMinor()).isEqualTo(495L);
        assertThat(valid.receipt().taxMinor()).isEqualTo(200L);
        assertThat(valid.receipt().discountMinor()).isEqualTo(200L);
    }

    @Test
    void pricesThatDoNotAddUpAreA422NamingTheFields() {
        assertThatThrownBy(() -> CheckoutRequestValidator.validate(request(List.of(
                new CheckoutRequest.Item("TEA-1", 2, "Sencha", 1_000L)), null, 495L, null, null), "k"))
                .isInstanceOfSatisfying(ApiProblemException.class, e -> {
                    assertThat(e.status().value()).isEqualTo(422);
                    assertThat(e.errors()).containsExactly("amount.minor: 2995, but the receipt's lines add up to 2495"
                            + " (items[].unitPrice x items[].quantity = 2000, + shipping 495 + tax 0 - discount 0)");
                });
    }

    @Test
    void malformedFieldsAreA400EachNamed() {
        assertThatThrownBy(() -> CheckoutRequestValidator.validate(request(List.of(
                new CheckoutRequest.Item("TEA-1", 1, "Sen\u0000cha", 0L),
                new CheckoutRequest.Item("MUG-1", 1, "x".repeat(201), null),
                new CheckoutRequest.Item("CUP-1", 1, " ", -5L)), "key-1", -1L, null, -2L), "key-1"))
                .isInstanceOfSatisfying(ApiProblemException.class, e -> {
                    assertThat(e.status().value()).isEqualTo(400);
                    assertThat(e.errors()).contains(
                            "items[0].name: printable characters only (no control characters)",
                            "items[0].unitPrice: must be positive, was 0",
                            "items[1].name: at most 200 characters",
                            "items[1].unitPrice: required once any line has a price or shipping, tax or discount is "
                                    + "given (minor units of the amount's currency)",
                            "items[2].name: must not be blank",
                            "items[2].unitPrice: must be positive, was -5",
                            "shipping: must not be negative, was -1",
                            "discount: must not be negative, was -2");
                    assertThat(e.errors()).anyMatch(m -> m.startsWith("orderReference: must not be the Idempotency-Key"));
                });
    }

    @Test
    void withoutReceiptFieldsTheRequestsCanonicalFormIsUnchangedSoOlderRetriesStillMatch() {
        CheckoutRequestValidator.Valid plain = CheckoutRequestValidator.validate(new CheckoutRequest(
                List.of(new CheckoutRequest.Item("TEA-1", 1)), AMOUNT, "tok_approve", "a@example.com"), "k");
        assertThat(CheckoutService.canonical(plain)).isEqualTo("TEA-1\u00001\n2995 EUR\ntok_approve\na@example.com");
        CheckoutRequestValidator.Valid named = CheckoutRequestValidator.validate(request(List.of(
                new CheckoutRequest.Item("TEA-1", 1, "Sencha", null)), null, null, null, null), "k");
        assertThat(CheckoutService.canonical(named)).startsWith(CheckoutService.canonical(plain))
                .isNotEqualTo(CheckoutService.canonical(plain)).contains("Sencha");
    }
}
