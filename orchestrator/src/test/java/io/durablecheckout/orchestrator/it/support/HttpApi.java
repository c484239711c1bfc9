package io.durablecheckout.orchestrator.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * A real HTTP client for the product's API, as a user would call it. Every exchange with {@code /api/**} is checked
 * against the served OpenAPI document ({@link ApiContractValidator}): the contract test of every HTTP IT.
 */
public final class HttpApi {

    public static final String DEMO_KEY = "demo-api-key";
    public static final String OPERATOR_KEY = "demo-operator-key";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    public HttpApi(int port) {
        this.base = "http://localhost:" + port;
    }

    public record Response(int status, Map<String, java.util.List<String>> headers, String body) {
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + body, e);
            }
        }

        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }
    }

    public static String checkoutBody(String sku, int quantity, long minor, String paymentToken) {
        return "{\"items\":[{\"sku\":\"" + sku + "\",\"quantity\":" + quantity + "}],\"amount\":{\"minor\":" + minor
                + ",\"currency\":\"EUR\"},\"paymentToken\":\"" + paymentToken + "\",\"customerEmail\":\"a@example.com\"}";
    }

    public Response startCheckout(String idempotencyKey, String body) {
        return send("POST", "/api/v1/checkouts", DEMO_KEY, Map.of("Idempotency-Key", idempotencyKey), body);
    }

    public Response get(String path) {
        return send("GET", path, DEMO_KEY, Map.of(), null);
    }

    public Response send(String method, String path, String apiKey, Map<String, String> headers, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (apiKey != null) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        headers.forEach(b::header);
        if (body != null) {
            b.header("Content-Type", "application/json");
            b.method(method, HttpRequest.BodyPublishers.ofString(body));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        try {
            HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
            Response response = new Response(r.statusCode(), r.headers().map(), r.body());
            Map<String, String> sent = new java.util.LinkedHashMap<>(headers);
            if (apiKey != null) sent.put("Authorization", "Bearer " + apiKey);
            if (body != null) sent.putIfAbsent("Content-Type", "application/json");
            ApiContractValidator.check(base, method, path, sent, body, response);
            return response;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
