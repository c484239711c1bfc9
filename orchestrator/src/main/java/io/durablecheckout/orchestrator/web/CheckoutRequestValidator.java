package io.durablecheckout.orchestrator.web;

import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.Sku;
import org.springframework.http.HttpStatus;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Checks a request completely and reports every mistake at once, so a client fixes them in one go. */
final class CheckoutRequestValidator {

    static final int MAX_ITEMS = 100;
    static final int MAX_QUANTITY = 10_000;
    private static final Pattern EMAIL = Pattern.compile("^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$");
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    private static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[\\x21-\\x7E]{1,255}");

    record Valid(List<LineItem> items, Money amount, String paymentToken, String customerEmail) {
    }

    private CheckoutRequestValidator() {
    }

    static void requireIdempotencyKey(String key) {
        if (key == null || key.isBlank()) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "missing-idempotency-key", "Missing Idempotency-Key",
                    "Send an Idempotency-Key header (1-255 printable characters) so a retried request creates one checkout");
        }
        if (!IDEMPOTENCY_KEY.matcher(key).matches()) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-idempotency-key", "Invalid Idempotency-Key",
                    "The Idempotency-Key must be 1-255 printable ASCII characters without spaces");
        }
    }

    static Valid validate(CheckoutRequest r) {
        List<String> errors = new ArrayList<>();
        if (r == null) {
            throw invalid(List.of("body: a JSON object is required"));
        }
        Map<String, Integer> quantities = new LinkedHashMap<>();
        if (r.items() == null || r.items().isEmpty()) {
            errors.add("items: at least one line item is required");
        } else if (r.items().size() > MAX_ITEMS) {
            errors.add("items: at most " + MAX_ITEMS + " line items");
        } else {
            for (int i = 0; i < r.items().size(); i++) {
                CheckoutRequest.Item item = r.items().get(i);
                String at = "items[" + i + "]";
                if (item == null) {
                    errors.add(at + ": must be an object with sku and quantity");
                    continue;
                }
                if (item.sku() == null || item.sku().isBlank()) {
                    errors.add(at + ".sku: required");
                } else if (item.sku().length() > 64) {
                    errors.add(at + ".sku: at most 64 characters");
                }
                if (item.quantity() == null) {
                    errors.add(at + ".quantity: required");
                } else if (item.quantity() <= 0) {
                    errors.add(at + ".quantity: must be positive, was " + item.quantity());
                } else if (item.quantity() > MAX_QUANTITY) {
                    errors.add(at + ".quantity: at most " + MAX_QUANTITY);
                }
                if (item.sku() != null && !item.sku().isBlank() && item.quantity() != null && item.quantity() > 0) {
                    quantities.merge(item.sku(), item.quantity(), Integer::sum);
                }
            }
        }
        if (r.amount() == null) {
            errors.add("amount: required, e.g. {\"minor\": 3998, \"currency\": \"EUR\"}");
        } else {
            if (r.amount().minor() == null) {
                errors.add("amount.minor: required (an integer in minor units, e.g. cents)");
            } else if (r.amount().minor() <= 0) {
                errors.add("amount.minor: must be positive, was " + r.amount().minor());
            }
            if (r.amount().currency() == null || !CURRENCY.matcher(r.amount().currency()).matches()) {
                errors.add("amount.currency: a 3-letter ISO 4217 code in upper case, e.g. EUR");
            }
        }
        if (r.paymentToken() == null || r.paymentToken().isBlank()) {
            errors.add("paymentToken: required (the provider's token for the payment method)");
        } else if (r.paymentToken().length() > 128) {
            errors.add("paymentToken: at most 128 characters");
        }
        if (r.customerEmail() == null || !EMAIL.matcher(r.customerEmail()).matches() || r.customerEmail().length() > 254) {
            errors.add("customerEmail: a valid e-mail address is required");
        }
        if (!errors.isEmpty()) {
            throw invalid(errors);
        }
        // Same SKU twice is one line: quantities add up (and the reservation locks each SKU once).
        List<LineItem> items = quantities.entrySet().stream()
                .map(e -> new LineItem(new Sku(e.getKey()), e.getValue())).toList();
        return new Valid(items, new Money(r.amount().minor(), r.amount().currency()), r.paymentToken(), r.customerEmail());
    }

    private static ApiProblemException invalid(List<String> errors) {
        return new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid checkout request",
                String.join("; ", errors), errors);
    }
}
