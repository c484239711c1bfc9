package io.durablecheckout.orchestrator.service;

import io.durablecheckout.orchestrator.http.TextLimits;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.Sku;
import org.springframework.http.HttpStatus;

import io.durablecheckout.api.values.CaptureMode;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Checks a request completely and reports every mistake at once, so a client fixes them in one go. */
final class CheckoutRequestValidator {

    static final int MAX_ITEMS = 100;
    static final int MAX_QUANTITY = 10_000;
    /**
     * An address the mail system can deliver to and nobody can use to smuggle markup: an RFC 5322 dot-atom local part
     * (no quoted strings, comments or angle brackets), an LDH host name of two or more labels (an internationalised
     * domain arrives as its xn-- form), at most 64 + 1 + 253 characters.
     */
    static final Pattern EMAIL = Pattern.compile("(?=[^@]{1,64}@)[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
            + "@(?=.{4,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])");
    /** 10^11 minor units (a billion in a two-decimal currency): far above any basket, far below overflow. */
    static final long MAX_AMOUNT_MINOR = 100_000_000_000L;
    /**
     * ISO 4217 codes the JDK knows (its list tracks the standard), less the ones that are no money one can charge: the
     * X-codes without minor units (XXX "no currency", XTS "testing", the metals XAU, XAG, XPT, XPD, the units of
     * account XDR, XBA-XBD, XSU, XUA and the like). The real X currencies (XAF, XOF, XPF, XCD, XCG) stay.
     */
    private static final java.util.Set<String> CURRENCIES = java.util.Currency.getAvailableCurrencies().stream()
            .filter(c -> c.getDefaultFractionDigits() >= 0)
            .map(java.util.Currency::getCurrencyCode).collect(java.util.stream.Collectors.toUnmodifiableSet());
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    private static final Pattern SKU = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern PAYMENT_TOKEN = Pattern.compile("[A-Za-z0-9._:-]{1,128}");
    private static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[\\x21-\\x7E]{1,255}");

    /** @param receipt the request's receipt fields ({@link ReceiptFields}), the merchant not yet filled in */
    record Valid(List<LineItem> items, Money amount, String paymentToken, String customerEmail,
                 io.durablecheckout.api.values.ReceiptDetails receipt, CaptureMode capture) {
        Valid(List<LineItem> items, Money amount, String paymentToken, String customerEmail) {
            this(items, amount, paymentToken, customerEmail, null, CaptureMode.ON_CONFIRMATION);
        }
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
        return validate(r, null);
    }

    static Valid validate(CheckoutRequest r, String idempotencyKey) {
        List<String> errors = new ArrayList<>();
        if (r == null) {
            throw invalid(List.of("body: a JSON object is required"));
        }
        io.durablecheckout.api.values.ReceiptDetails receipt = ReceiptFields.read(r, idempotencyKey, errors);
        CaptureMode capture = r.capture() == null ? CaptureMode.ON_CONFIRMATION : CaptureMode.fromWire(r.capture());
        if (capture == null) {
            errors.add("capture: on_confirmation (the default: captured once the order is confirmed) or deferred "
                    + "(captured when you call POST /api/v1/checkouts/{id}/capture)");
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
                } else if (!SKU.matcher(item.sku()).matches()) {
                    errors.add(at + ".sku: 1 to 64 of [A-Za-z0-9._-]");
                }
                if (item.quantity() == null) {
                    errors.add(at + ".quantity: required");
                } else if (item.quantity() <= 0) {
                    errors.add(at + ".quantity: must be positive, was " + item.quantity());
                } else if (item.quantity() > MAX_QUANTITY) {
                    errors.add(at + ".quantity: at most " + MAX_QUANTITY);
                }
                if (item.sku() != null && SKU.matcher(item.sku()).matches() && item.quantity() != null && item.quantity() > 0) {
                    quantities.merge(item.sku(), item.quantity(), Integer::sum);
                }
            }
            // The cap is per SKU, after merging (below): 100 lines of 10,000 are not one line of 1,000,000.
            quantities.forEach((sku, total) -> {
                if (total > MAX_QUANTITY) {
                    errors.add("items: SKU " + sku + " totals " + total + " over its lines, at most " + MAX_QUANTITY);
                }
            });
        }
        if (r.amount() == null) {
            errors.add("amount: required, e.g. {\"minor\": 3998, \"currency\": \"EUR\"}");
        } else {
            if (r.amount().minor() == null) {
                errors.add("amount.minor: required (an integer in minor units, e.g. cents)");
            } else if (r.amount().minor() <= 0) {
                errors.add("amount.minor: must be positive, was " + r.amount().minor());
            } else if (r.amount().minor() > MAX_AMOUNT_MINOR) {
                errors.add("amount.minor: at most " + MAX_AMOUNT_MINOR);
            }
            if (r.amount().currency() == null || !CURRENCY.matcher(r.amount().currency()).matches()
                    || !CURRENCIES.contains(r.amount().currency())) {
                errors.add("amount.currency: a 3-letter ISO 4217 currency code in upper case, e.g. EUR (not a test code, "
                        + "metal or unit of account such as XXX, XTS or XAU)");
            }
        }
        if (r.paymentToken() == null || r.paymentToken().isBlank()) {
            errors.add("paymentToken: required (the provider's token for the payment method)");
        } else if (!PAYMENT_TOKEN.matcher(r.paymentToken()).matches()) {
            errors.add("paymentToken: 1 to 128 of [A-Za-z0-9._:-]");
        }
        if (r.customerEmail() == null || r.customerEmail().length() > 254 || !EMAIL.matcher(r.customerEmail()).matches()) {
            errors.add("customerEmail: a valid e-mail address is required (local@host.example: letters, digits and "
                    + "!#$%&'*+/=?^_`{|}~.- before the @, a host name after it)");
        }
        if (!errors.isEmpty()) {
            throw invalid(errors);
        }
        // Same SKU twice is one line: quantities add up (and the reservation locks each SKU once).
        List<LineItem> items = quantities.entrySet().stream()
                .map(e -> new LineItem(new Sku(e.getKey()), e.getValue())).toList();
        Money amount = new Money(r.amount().minor(), r.amount().currency());
        ReceiptFields.requireTotal(receipt, amount);
        return new Valid(items, amount, r.paymentToken(), r.customerEmail(), receipt, capture);
    }

    private static ApiProblemException invalid(List<String> errors) {
        return new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid checkout request",
                String.join("; ", errors), errors);
    }
}
