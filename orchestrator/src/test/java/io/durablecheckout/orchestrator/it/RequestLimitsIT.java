package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;

import io.durablecheckout.orchestrator.tenancy.ApiKeys;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.EnumSet;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 10, limits: 413, 415, item count, amount, currency, text fields, per-tenant rate (429 + Retry-After). */
class RequestLimitsIT extends IntegrationTestBase {

    @Autowired
    ApiKeys apiKeys;

    @Test
    void oversizeWrongTypeAndOutOfBoundsRequestsAreRefusedAndWriteNothing() throws Exception {
        // checkouts created, not all events: earlier tests' checkouts may still be appending theirs
        long created = createdCheckouts();
        String big = "{\"pad\":\"" + "x".repeat(200 * 1024) + "\"}";

        HttpApi.Response declared = api.send("POST", "/api/v1/checkouts", HttpApi.DEMO_KEY,
                Map.of("Idempotency-Key", "lim-" + UUID.randomUUID()), big);
        assertThat(declared.status()).isEqualTo(413);
        assertThat(declared.header("Content-Type")).startsWith("application/problem+json");

        // chunked (no Content-Length): refused once the limit is passed while reading
        HttpResponse<String> chunked = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://localhost:" + port + "/api/v1/checkouts"))
                .header("Authorization", "Bearer " + HttpApi.DEMO_KEY).header("Idempotency-Key", "lim-" + UUID.randomUUID())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(
                        ("{\"paymentToken\":\"" + "x".repeat(200 * 1024) + "\"}").getBytes())))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(chunked.statusCode()).as(chunked.body()).isEqualTo(413);

        HttpResponse<String> text = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://localhost:" + port + "/api/v1/checkouts"))
                .header("Authorization", "Bearer " + HttpApi.DEMO_KEY).header("Idempotency-Key", "lim-" + UUID.randomUUID())
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(HttpApi.checkoutBody("SKU-0001", 1, 100, "tok_approve")))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(text.statusCode()).isEqualTo(415);

        String manyItems = "{\"items\":[" + "{\"sku\":\"SKU-0001\",\"quantity\":1},".repeat(150)
                + "{\"sku\":\"SKU-0001\",\"quantity\":1}],\"amount\":{\"minor\":100,\"currency\":\"EUR\"},"
                + "\"paymentToken\":\"tok_approve\",\"customerEmail\":\"a@example.com\"}";
        HttpApi.Response items = api.startCheckout("lim-" + UUID.randomUUID(), manyItems);
        assertThat(items.status()).isEqualTo(400);
        assertThat(items.body()).contains("at most 100 line items");

        assertThat(api.startCheckout("lim-" + UUID.randomUUID(),
                HttpApi.checkoutBody("SKU-0001", 1, 100_000_000_001L, "tok_approve")).status()).isEqualTo(400);
        assertThat(api.startCheckout("lim-" + UUID.randomUUID(),
                HttpApi.checkoutBody("SKU-0001", 1, 100, "tok_approve").replace("EUR", "EUX")).status()).isEqualTo(400);
        assertThat(api.startCheckout("lim-" + UUID.randomUUID(),
                HttpApi.checkoutBody("SKU-0001", 1, 100, "tok approve\\u0000")).status()).isEqualTo(400);
        assertThat(api.startCheckout("lim-" + UUID.randomUUID(),
                HttpApi.checkoutBody("SKU-0001", 1, 100, "tok_approve").replace("a@example.com", "a\\u0007@example.com"))
                .status()).isEqualTo(400);
        assertThat(api.startCheckout("x".repeat(300), HttpApi.checkoutBody("SKU-0001", 1, 100, "tok_approve")).status())
                .isEqualTo(400);

        assertThat(createdCheckouts()).isEqualTo(created);
    }

    @Test
    void aTenantOverItsRateGets429WithRetryAfter() {
        String tenant = "rl-" + UUID.randomUUID().toString().substring(0, 8);
        apiKeys.createTenant(tenant, "Rate-limited shop");
        jdbc.update("UPDATE tenants SET requests_per_second = 1 WHERE tenant_id = ?", tenant);
        String key = apiKeys.issue(tenant, EnumSet.of(Caller.Role.TENANT), "test", "test").key();

        int limited = 0;
        String retryAfter = null;
        for (int i = 0; i < 6; i++) {
            HttpApi.Response r = api.send("GET", "/api/v1/checkouts?limit=1", key, Map.of(), null);
            if (r.status() == 429) {
                limited++;
                retryAfter = r.header("Retry-After");
            } else {
                assertThat(r.status()).isEqualTo(200);
            }
        }
        assertThat(limited).isGreaterThanOrEqualTo(1);
        assertThat(Long.parseLong(retryAfter)).isBetween(1L, 2L);
        // another tenant is not slowed down by it
        assertThat(api.get("/api/v1/checkouts?limit=1").status()).isEqualTo(200);
    }
}
