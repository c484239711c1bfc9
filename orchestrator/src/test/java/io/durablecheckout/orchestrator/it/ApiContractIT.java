package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.ApiContractValidator;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The served OpenAPI document says what the API answers (issue 25): 202 for submit and cancel, problem+json for every
 * 4xx, the bundle as an object. Every HTTP IT's exchanges are validated against it ({@link ApiContractValidator}); this
 * test names the points a generated client got wrong before, and the document's shape.
 */
class ApiContractIT extends IntegrationTestBase {

    @Test
    void theDocumentDeclaresTheStatusesAndBodiesTheApiAnswers() throws Exception {
        HttpApi.Response doc = api.send("GET", "/v3/api-docs", HttpApi.OPERATOR_KEY, Map.of(), null);
        assertThat(doc.status()).isEqualTo(200);
        Files.writeString(Path.of("target", "api-docs.json"), doc.body());
        JsonNode root = doc.json();
        assertThat(root.path("openapi").asText()).startsWith("3.0");
        JsonNode paths = root.path("paths");
        assertThat(paths.fieldNames()).toIterable().allMatch(p -> p.startsWith("/api/"));

        JsonNode submit = paths.path("/api/v1/checkouts").path("post").path("responses");
        assertThat(submit.has("202")).isTrue();
        assertThat(submit.has("200")).isFalse();
        assertThat(submit.path("202").path("content").path("application/json").path("schema").path("$ref").asText())
                .endsWith("/Accepted");
        for (String status : new String[]{"400", "401", "403", "409", "413", "415", "422", "429"}) {
            assertThat(submit.path(status).path("content").has("application/problem+json")).as(status).isTrue();
        }
        JsonNode cancel = paths.path("/api/v1/checkouts/{checkoutId}/cancel").path("post").path("responses");
        assertThat(cancel.has("202")).isTrue();
        assertThat(cancel.has("200")).isFalse();
        JsonNode bundle = paths.path("/api/v1/checkouts/{checkoutId}/bundle").path("get").path("responses")
                .path("200").path("content").path("application/json").path("schema");
        assertThat(bundle.path("type").asText()).isEqualTo("object");
        paths.forEach(item -> item.forEach(operation -> operation.path("responses").fields().forEachRemaining(r -> {
            if (r.getKey().startsWith("4") || r.getKey().startsWith("5")) {
                assertThat(r.getValue().path("content").has("application/problem+json")).as(r.getKey()).isTrue();
            }
        })));
    }

    @Test
    void aSubmissionAndItsProblemsAreCheckedAgainstTheDocumentByTheSharedClient() {
        // the shared client validated these exchanges (202 and a 400 problem); an undeclared one would throw
        HttpApi.Response accepted = api.startCheckout("contract-" + java.util.UUID.randomUUID(),
                HttpApi.checkoutBody("SKU-0001", 1, 1000, "tok_approve"));
        assertThat(accepted.status()).isEqualTo(202);
        HttpApi.Response invalid = api.startCheckout("contract-" + java.util.UUID.randomUUID(), "{\"items\":[]}");
        assertThat(invalid.status()).isEqualTo(400);
        assertThat(invalid.header("Content-Type")).startsWith("application/problem+json");
    }
}
