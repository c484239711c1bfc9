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
 * {@link ReceiptFields}). Numbers are JSON integers and text fields JSON strings, nothing coerced (issue 53).
 * {@code capture}: {@code on_confirmation} (the default) or {@code deferred} (the tenant captures as it ships).
 */
public record CheckoutRequest(@JsonDeserialize(using = BoundedItems.class) List<Item> items, Amount amount,
                              @JsonDeserialize(using = Text.class) String paymentToken,
                              @JsonDeserialize(using = Text.class) String customerEmail,
                              @JsonDeserialize(using = Text.class) String orderReference,
                              @JsonDeserialize(using = WholeLong.class) Long shipping,
                              @JsonDeserialize(using = WholeLong.class) Long tax,
                              @JsonDeserialize(using = WholeLong.class) Long discount,
                              @JsonDeserialize(using = Text.class) String capture) {

    public CheckoutRequest(List<Item> items, Amount amount, String paymentToken, String customerEmail) {
        this(items, amount, paymentToken, customerEmail, null, null, null, null, null);
    }

    public CheckoutRequest(List<Item> items, Amount amount, String paymentToken, String customerEmail,
                           String orderReference, Long shipping, Long tax, Long discount) {
        this(items, amount, paymentToken, customerEmail, orderReference, shipping, tax, discount, null);
    }

    /** Named apart from the view's {@code Item} in the OpenAPI document (same simple name, other fields). */
    @io.swagger.v3.oas.annotations.media.Schema(name = "CheckoutRequestItem")
    public record Item(@JsonDeserialize(using = Text.class) String sku,
                       @JsonDeserialize(using = WholeNumber.class) Integer quantity,
                       @JsonDeserialize(using = Text.class) String name,
                       @JsonDeserialize(using = WholeLong.class) Long unitPrice) {
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

    public record Amount(@JsonDeserialize(using = WholeLong.class) Long minor,
                         @JsonDeserialize(using = Text.class) String currency) {
    }

    /**
     * A JSON integer and nothing else: Jackson would take {@code 1.5} as 1 and {@code "1000"} as 1000 (issue 53), so a
     * client's mistake would be charged or shipped instead of refused. Refused with the field's path, e.g.
     * {@code items[2].quantity}; null stays null (the validator says "required").
     */
    static final class WholeNumber extends ValueDeserializer<Integer> {
        @Override
        public Integer deserialize(JsonParser p, DeserializationContext ctxt) {
            long value = whole(p, ctxt, this);
            if (value > Integer.MAX_VALUE || value < Integer.MIN_VALUE) {
                return ctxt.reportInputMismatch(this, field(p) + ": out of range");
            }
            return (int) value;
        }
    }

    static final class WholeLong extends ValueDeserializer<Long> {
        @Override
        public Long deserialize(JsonParser p, DeserializationContext ctxt) {
            return whole(p, ctxt, this);
        }
    }

    /** A JSON string and nothing else (Jackson would take {@code 978} as {@code "978"}). */
    static final class Text extends ValueDeserializer<String> {
        @Override
        public String deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                return ctxt.reportInputMismatch(this, field(p) + ": a JSON string is required");
            }
            return p.getString();
        }
    }

    private static long whole(JsonParser p, DeserializationContext ctxt, ValueDeserializer<?> deserializer) {
        if (p.currentToken() != JsonToken.VALUE_NUMBER_INT) {
            String was = p.currentToken() == JsonToken.VALUE_STRING ? "a string"
                    : p.currentToken() == JsonToken.VALUE_NUMBER_FLOAT ? "a fraction" : "not a number";
            return ctxt.reportInputMismatch(deserializer, field(p) + ": a whole number (JSON integer) is required, was "
                    + was);
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            return ctxt.reportInputMismatch(deserializer, field(p) + ": out of range");
        }
        return p.getLongValue();
    }

    /** The field being read, as the validator names it: {@code /items/2/quantity} is {@code items[2].quantity}. */
    static String field(JsonParser p) {
        String pointer = p.streamReadContext().pathAsPointer().toString();
        return pointer.replaceAll("/(\\d+)(?=/|$)", "[$1]").replace('/', '.').replaceFirst("^\\.", "");
    }
}
