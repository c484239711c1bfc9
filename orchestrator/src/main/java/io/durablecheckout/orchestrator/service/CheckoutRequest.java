package io.durablecheckout.orchestrator.service;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.annotation.JsonDeserialize;

import java.util.ArrayList;

import java.util.List;

/**
 * The body of POST /api/v1/checkouts, as the client sent it (boxed, so a missing field is told from a zero). The
 * receipt's fields are optional: {@code orderReference}, each item's {@code name} and {@code unitPrice}, and
 * {@code shipping}, {@code tax} and {@code discount} (minor units of the amount's currency; see
 * {@link ReceiptFields}).
 */
public record CheckoutRequest(@JsonDeserialize(using = BoundedItems.class) List<Item> items, Amount amount, String paymentToken,
                              String customerEmail, String orderReference, Long shipping, Long tax, Long discount) {

    public CheckoutRequest(List<Item> items, Amount amount, String paymentToken, String customerEmail) {
        this(items, amount, paymentToken, customerEmail, null, null, null, null);
    }

    /** Named apart from the view's {@code Item} in the OpenAPI document (same simple name, other fields). */
    @io.swagger.v3.oas.annotations.media.Schema(name = "CheckoutRequestItem")
    public record Item(String sku, Integer quantity, String name, Long unitPrice) {
        public Item(String sku, Integer quantity) {
            this(sku, quantity, null, null);
        }
    }

    /**
     * Reads {@code items} one element at a time and stops at the first one past
     * {@link CheckoutRequestValidator#MAX_ITEMS}, so an enormous list is refused before it is built.
     */
    static final class BoundedItems extends ValueDeserializer<List<Item>> {
        @Override
        public List<Item> deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() != JsonToken.START_ARRAY) {
                return ctxt.reportInputMismatch(this, "items: must be an array of {sku, quantity}");
            }
            List<Item> items = new ArrayList<>();
            while (p.nextToken() != JsonToken.END_ARRAY) {
                if (items.size() == CheckoutRequestValidator.MAX_ITEMS) {
                    return ctxt.reportInputMismatch(this, "items: at most " + CheckoutRequestValidator.MAX_ITEMS
                            + " line items");
                }
                items.add(p.currentToken() == JsonToken.VALUE_NULL ? null : ctxt.readValue(p, Item.class));
            }
            return items;
        }
    }

    public record Amount(Long minor, String currency) {
    }
}
