package io.durablecheckout.orchestrator.web;

import java.util.List;

/** The body of POST /api/v1/checkouts, as the client sent it (boxed, so a missing field is told from a zero). */
public record CheckoutRequest(List<Item> items, Amount amount, String paymentToken, String customerEmail) {

    public record Item(String sku, Integer quantity) {
    }

    public record Amount(Long minor, String currency) {
    }
}
