package io.durablecheckout.orchestrator.web;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.RequestBody;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the OpenAPI document ({@code /v3/api-docs}) declares beyond what springdoc infers from the handlers, so that a
 * client generated from it is right: the success status of every operation that does not answer 200 (202 for
 * submissions, cancellations, operator actions and notifications, 201 for what the admin API creates), the
 * problem+json answers (RFC 9457) every operation can give, the bundle's body as the JSON object it is, and bodies as
 * {@code application/json} rather than {@code *}{@code /*}. Properties may be null where the API leaves them empty.
 * A contract test validates every exchange of the HTTP integration tests against the served document.
 */
@Component
public class ApiContract implements OpenApiCustomizer {

    /** Success statuses other than 200, by "METHOD path". */
    static final Map<String, String> SUCCESS = Map.ofEntries(
            Map.entry("POST /api/v1/checkouts", "202"),
            Map.entry("POST /api/v1/checkouts/{checkoutId}/cancel", "202"),
            Map.entry("POST /api/v1/checkouts/{checkoutId}/capture", "202"),
            Map.entry("POST /api/v1/operator/checkouts/{checkoutId}/resolve", "202"),
            Map.entry("POST /api/v1/operator/checkouts/{checkoutId}/retry", "202"),
            Map.entry("POST /api/v1/operator/checkouts/{checkoutId}/cancel", "202"),
            Map.entry("POST /api/v1/operator/checkouts/{checkoutId}/refund", "202"),
            Map.entry("POST /api/v1/operator/checkouts/{checkoutId}/capture-hold", "202"),
            Map.entry("POST /api/v1/operator/checkouts/{checkoutId}/release-hold", "202"),
            Map.entry("POST /api/v1/payment-callbacks", "202"),
            Map.entry("POST /api/v1/payment-callbacks/stripe", "202"),
            Map.entry("POST /api/v1/admin/tenants", "201"),
            Map.entry("POST /api/v1/admin/tenants/{tenantId}/keys", "201"),
            Map.entry("POST /api/v1/admin/tenants/{tenantId}/stock", "201"),
            Map.entry("POST /api/v1/admin/keys/{keyId}/rotate", "201"),
            Map.entry("POST /api/v1/admin/processors/{processor}/segments/{segment}/split", "202"),
            Map.entry("POST /api/v1/admin/processors/{processor}/segments/{segment}/merge", "202"));

    /** Every operation: bad input, no or a wrong key, a missing role, an unknown path or method, limits, our failure. */
    static final Map<String, String> ALWAYS = new TreeMap<>(Map.of(
            "400", "Invalid request: the detail (and errors) say what to fix", "401", "No valid API key",
            "403", "The key lacks the role", "404", "No such resource for this key", "405", "Method not allowed",
            "406", "Not acceptable", "429", "Rate limited or failed authentications throttled (Retry-After)",
            "500", "Our failure; nothing you sent was at fault", "503", "A service this needs is not reachable"));

    /** Requests with a body: too large, not JSON. */
    static final Map<String, String> WITH_BODY = Map.of("413", "Body too large", "415", "Body not application/json");

    static final String PROBLEM_JSON = "application/problem+json";

    @Override
    public void customise(OpenAPI api) {
        // the document's own name and the API's version (its paths are /api/v1), not springdoc's placeholders
        api.info(new io.swagger.v3.oas.models.info.Info().title("Durable checkout orchestrator API").version("v1")
                .description("Checkouts, their histories and repairs; RFC 9457 problems (README, docs/operations.md)"));
        Schema<?> problem = new ObjectSchema()
                .addProperty("type", new StringSchema().format("uri-reference"))
                .addProperty("title", new StringSchema())
                .addProperty("status", new IntegerSchema())
                .addProperty("detail", new StringSchema())
                .addProperty("instance", new StringSchema())
                .addProperty("errors", new ArraySchema().items(new StringSchema()))
                .additionalProperties(true)
                .description("RFC 9457 problem details; some problems add fields of their own");
        api.getComponents().addSchemas("Problem", problem);
        api.getComponents().getSchemas().values().forEach(ApiContract::nullableProperties);
        api.getComponents().getSchemas().values().forEach(ApiContract::loosen);
        if (api.getPaths() == null) return;
        api.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, operation) -> {
            if (operation.getResponses() != null) {
                operation.getResponses().values().stream().filter(r -> r.getContent() != null)
                        .flatMap(r -> r.getContent().values().stream()).forEach(m -> loosen(m.getSchema()));
            }
            declare(method, path, operation);
        }));
    }

    /** A Java {@code Object} (a map's values, a payload of any event): springdoc says "object"; it may be anything. */
    private static boolean anything(Schema<?> s) {
        return s != null && "object".equals(s.getType()) && s.getProperties() == null
                && s.getAdditionalProperties() == null && s.get$ref() == null && s.getDescription() == null
                && s.getAllOf() == null;
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static void loosen(Schema schema) {
        if (schema == null) return;
        Map<String, Schema> properties = schema.getProperties();
        if (properties != null) {
            properties.replaceAll((name, p) -> anything(p) ? new Schema<>().nullable(true) : p);
            properties.values().forEach(ApiContract::loosen);
        }
        if (schema.getAdditionalProperties() instanceof Schema extra) {
            if (anything(extra)) schema.setAdditionalProperties(true);
            else loosen(extra);
        }
        if (schema.getItems() != null) {
            if (anything(schema.getItems())) schema.setItems(new Schema<>());
            else loosen(schema.getItems());
        }
    }

    private static void declare(PathItem.HttpMethod method, String path, Operation operation) {
        ApiResponses responses = operation.getResponses();
        ApiResponse ok = responses.remove("200");
        String success = SUCCESS.getOrDefault(method + " " + path, "200");
        if (ok == null) ok = new ApiResponse();
        ok.setDescription(success.equals("202") ? "Accepted: the work goes on; the body is its current state"
                : success.equals("201") ? "Created" : "OK");
        ok.setContent(json(ok.getContent()));
        if (path.endsWith("/bundle")) {
            ok.setContent(new Content().addMediaType("application/json", new MediaType().schema(new ObjectSchema()
                    .description("The checkout's history bundle (docs/replay.md), personal fields redacted"))));
        }
        Map<String, ApiResponse> ordered = new LinkedHashMap<>();
        ordered.put(success, ok);
        Map<String, String> errors = new TreeMap<>(ALWAYS);
        boolean write = method == PathItem.HttpMethod.POST || method == PathItem.HttpMethod.DELETE;
        if (write || method == PathItem.HttpMethod.PUT) errors.putAll(WITH_BODY);
        if (write) {
            errors.put("409", "Conflicts with the current state (a transition the checkout refuses, a replayed or "
                    + "disputed notification, an Idempotency-Key in flight)");
        }
        if (path.startsWith("/api/v1/operator/checkouts/")) {
            errors.put("412", "If-Match names a version that is no longer current");
            errors.put("428", "If-Match is required");
        }
        if (method == PathItem.HttpMethod.POST && path.equals("/api/v1/checkouts")) {
            errors.put("422", "An Idempotency-Key reused with another body, or an unknown SKU");
        }
        if (method == PathItem.HttpMethod.POST && path.equals("/api/v1/admin/tenants/{tenantId}/keys")) {
            errors.put("422", "Roles that mix a merchant's (tenant) with staff's (operator, admin), in the key or "
                    + "its account");
        }
        errors.forEach((status, description) -> ordered.put(status, new ApiResponse().description(description)
                .content(new Content().addMediaType(PROBLEM_JSON,
                        new MediaType().schema(new Schema<>().$ref("#/components/schemas/Problem"))))));
        ApiResponses declared = new ApiResponses();
        ordered.forEach(declared::addApiResponse);
        operation.setResponses(declared);
        if (method == PathItem.HttpMethod.POST && path.startsWith("/api/v1/payment-callbacks")) {
            operation.setRequestBody(new RequestBody().required(true).content(new Content().addMediaType(
                    "application/json", new MediaType().schema(new ObjectSchema().description(
                            "The provider's notification, signed as Standard Webhooks (webhook-id, webhook-timestamp, "
                                    + "webhook-signature); see docs/workflow.md")))));
        }
        if (operation.getRequestBody() != null && operation.getRequestBody().getContent() != null) {
            operation.getRequestBody().setContent(json(operation.getRequestBody().getContent()));
        }
    }

    /** {@code *}{@code /*} (springdoc's default for handlers without {@code produces}) as what is sent: JSON. */
    private static Content json(Content content) {
        if (content == null || content.isEmpty()) {
            return new Content().addMediaType("application/json", new MediaType().schema(new ObjectSchema()));
        }
        MediaType any = content.remove("*/*");
        if (any != null) content.addMediaType("application/json", any);
        return content;
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static void nullableProperties(Schema<?> schema) {
        Map<String, Schema> properties = schema.getProperties();
        if (properties == null) return;
        for (Schema property : properties.values()) {
            if (property.get$ref() != null) {
                // a $ref's siblings are ignored in OpenAPI 3.0: allOf carries the nullable flag
                String ref = property.get$ref();
                property.set$ref(null);
                property.setAllOf(List.of(new Schema<>().$ref(ref)));
            }
            property.setNullable(true);
        }
    }
}
