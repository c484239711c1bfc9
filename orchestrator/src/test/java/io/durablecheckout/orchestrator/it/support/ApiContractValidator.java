package io.durablecheckout.orchestrator.it.support;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.ValidationReport;

import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The contract test inside every HTTP integration test: each exchange {@link HttpApi} makes with {@code /api/**} is
 * validated against the OpenAPI document the application serves ({@code /v3/api-docs}, fetched once per server) with
 * the swagger-request-validator. The response must be declared (status, content type, body schema) whatever it is; a
 * request the API accepted (2xx) must conform too. An exchange with an undeclared path or method is checked only when
 * the API did not answer 404 or 405 itself. A violation fails the test that made the call.
 */
public final class ApiContractValidator {

    /** {@code -Dcontract.validate=false} turns it off (to look at a failure without it). */
    public static final boolean ENABLED = !"false".equals(System.getProperty("contract.validate"));

    private static final Map<String, OpenApiInteractionValidator> BY_BASE = new ConcurrentHashMap<>();

    private ApiContractValidator() {
    }

    public static OpenApiInteractionValidator forServer(String base) {
        return BY_BASE.computeIfAbsent(base, b -> OpenApiInteractionValidator
                .createForInlineApiSpecification(document(b)).build());
    }

    public static String document(String base) {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/v3/api-docs"))
                    .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + HttpApi.OPERATOR_KEY).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) throw new IllegalStateException("/v3/api-docs answered " + r.statusCode());
            return r.body();
        } catch (Exception e) {
            throw new IllegalStateException("the OpenAPI document of " + base + " could not be read", e);
        }
    }

    /** Throws an AssertionError naming every violation of the served document in this exchange. */
    public static void check(String base, String method, String pathAndQuery, Map<String, String> requestHeaders, String body,
                      HttpApi.Response response) {
        if (!ENABLED || !pathAndQuery.startsWith("/api/")) return;
        List<String> violations = violations(forServer(base), method, pathAndQuery, requestHeaders, body, response);
        if (!violations.isEmpty()) {
            throw new AssertionError("contract: " + method + " " + pathAndQuery + " answered " + response.status()
                    + ", which the OpenAPI document does not declare:\n  - " + String.join("\n  - ", violations)
                    + "\nbody: " + excerpt(response.body()));
        }
    }

    public static List<String> violations(OpenApiInteractionValidator validator, String method, String pathAndQuery,
                                   Map<String, String> requestHeaders, String body, HttpApi.Response response) {
        int q = pathAndQuery.indexOf('?');
        String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
        SimpleRequest.Builder request = new SimpleRequest.Builder(method, path);
        if (q >= 0) {
            for (String pair : pathAndQuery.substring(q + 1).split("&")) {
                if (pair.isEmpty()) continue;
                int eq = pair.indexOf('=');
                String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                request.withQueryParam(name, value);
            }
        }
        requestHeaders.forEach(request::withHeader);
        if (body != null) {
            request.withBody(body);
            if (requestHeaders.keySet().stream().noneMatch("Content-Type"::equalsIgnoreCase)) {
                request.withContentType("application/json");
            }
        }
        SimpleResponse.Builder answer = SimpleResponse.Builder.status(response.status());
        response.headers().forEach((name, values) -> {
            if (name != null && !name.startsWith(":")) answer.withHeader(name, values);
        });
        if (response.body() != null && !response.body().isEmpty()) answer.withBody(response.body());
        Request built = request.build();
        ValidationReport report = validator.validateResponse(path, built.getMethod(), answer.build());
        if (response.status() >= 200 && response.status() < 300) {
            report = report.merge(validator.validateRequest(built));
        }
        return report.getMessages().stream()
                .filter(m -> m.getLevel() == ValidationReport.Level.ERROR)
                // the API's own answer to a path or method it does not have is a declared problem, not a contract gap
                .filter(m -> !(response.status() == 404 && m.getKey().equals("validation.request.path.missing")))
                .filter(m -> !(response.status() == 405 && m.getKey().equals("validation.request.operation.notAllowed")))
                // a body sent to an operation that reads none (IsolationMatrixIT posts one everywhere) is ignored
                .filter(m -> !m.getKey().equals("validation.request.body.unexpected"))
                .map(m -> m.getKey() + ": " + m.getMessage())
                .collect(Collectors.toList());
    }

    private static String excerpt(String body) {
        return body == null ? "" : body.length() > 500 ? body.substring(0, 500) + "…" : body;
    }
}
