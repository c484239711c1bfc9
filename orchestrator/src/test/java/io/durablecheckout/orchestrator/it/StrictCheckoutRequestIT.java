package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.service.CheckoutIds;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 53's weak points in the checkout request, over HTTP: values Jackson would coerce (charged 10 for 10.5, 1000
 * for "1000", 1 for 1.5; a number taken as text), one SKU's lines merging past the per-line cap, and ISO 4217 codes that are no money. Each
 * is refused with problem+json naming the field, and no checkout is made.
 */
class StrictCheckoutRequestIT extends IntegrationTestBase {

    @Autowired
    CheckoutIds ids;

    private static final String ITEM = "{\"sku\":\"SKU-0304\",\"quantity\":1}";
    private static final String AMOUNT = "{\"minor\":900,\"currency\":\"EUR\"}";

    private static String body(String items, String amount) {
        return "{\"items\":" + items + ",\"amount\":" + amount
                + ",\"paymentToken\":\"tok_approve\",\"customerEmail\":\"a@example.com\"}";
    }

    private void refused(String body, int status, String field) {
        String key = "strict-" + UUID.randomUUID();
        HttpApi.Response r = api.startCheckout(key, body);
        assertThat(r.status()).as(body + " -> " + r.body()).isEqualTo(status);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
        assertThat(r.body()).as(body).contains(field);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?",
                Integer.class, ids.idFor(new TenantId("demo"), key).value())).isZero();
    }

    @Test
    void coercibleNumbersAreRefusedNamingTheField() {
        refused(body("[" + ITEM + "]", "{\"minor\":10.5,\"currency\":\"EUR\"}"), 400, "amount.minor");
        refused(body("[" + ITEM + "]", "{\"minor\":\"1000\",\"currency\":\"EUR\"}"), 400, "amount.minor");
        refused(body("[" + ITEM + "]", "{\"minor\":1e3,\"currency\":\"EUR\"}"), 400, "amount.minor");
        refused(body("[" + ITEM + "]", "{\"minor\":true,\"currency\":\"EUR\"}"), 400, "amount.minor");
        refused(body("[" + ITEM + ",{\"sku\":\"SKU-0305\",\"quantity\":1.5}]", AMOUNT), 400, "items[1].quantity");
        refused(body("[{\"sku\":\"SKU-0304\",\"quantity\":\"2\"}]", AMOUNT), 400, "items[0].quantity");
        refused(body("[{\"sku\":\"SKU-0304\",\"quantity\":99999999999999999999}]", AMOUNT), 400, "items[0].quantity");
        // and no number read as text either
        refused(body("[{\"sku\":304,\"quantity\":1}]", AMOUNT), 400, "items[0].sku");
        refused(body("[" + ITEM + "]", "{\"minor\":900,\"currency\":978}"), 400, "amount.currency");
        refused(body("[" + ITEM + "]", AMOUNT).replace("\"tok_approve\"", "12345"), 400, "paymentToken");
    }

    @Test
    void oneSkusLinesMayNotAddUpPastThePerLineCap() {
        String line = "{\"sku\":\"SKU-0304\",\"quantity\":10000}";
        refused(body("[" + String.join(",", java.util.Collections.nCopies(100, line)) + "]", AMOUNT), 400, "SKU-0304");
        refused(body("[" + line + "," + "{\"sku\":\"SKU-0304\",\"quantity\":1}]", AMOUNT), 400, "items");
    }

    @Test
    void codesThatAreNoMoneyAreRefusedAndRealXCurrenciesAccepted() {
        for (String code : List.of("XXX", "XTS", "XAU", "XAG", "XDR", "XPT")) {
            refused(body("[" + ITEM + "]", "{\"minor\":900,\"currency\":\"" + code + "\"}"), 400, "amount.currency");
        }
        HttpApi.Response cfa = api.startCheckout("strict-" + UUID.randomUUID(),
                body("[" + ITEM + "]", "{\"minor\":900,\"currency\":\"XOF\"}"));
        assertThat(cfa.status()).as(cfa.body()).isEqualTo(202);
        // the lines of one SKU up to the cap together still merge into one line
        HttpApi.Response merged = api.startCheckout("strict-" + UUID.randomUUID(), body(
                "[{\"sku\":\"SKU-0304\",\"quantity\":2},{\"sku\":\"SKU-0304\",\"quantity\":3}]", AMOUNT));
        assertThat(merged.status()).as(merged.body()).isEqualTo(202);
    }
}
