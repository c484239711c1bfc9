package io.durablecheckout.orchestrator.it.support;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The contract check can fail: an undeclared status, content type or body shape is a violation. */
public class ApiContractValidatorTest {

    private static final String DOCUMENT = """
            {"openapi":"3.0.1","info":{"title":"t","version":"1"},
             "paths":{"/api/v1/things":{"post":{
               "requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/In"}}}},
               "responses":{
                 "202":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Out"}}}},
                 "400":{"description":"bad","content":{"application/problem+json":{"schema":{"type":"object"}}}}}}}},
             "components":{"schemas":{
               "In":{"type":"object","properties":{"n":{"type":"integer"}}},
               "Out":{"type":"object","properties":{"id":{"type":"string"},"state":{"type":"string","nullable":true}}}}}}
            """;

    private static final OpenApiInteractionValidator VALIDATOR =
            OpenApiInteractionValidator.createForInlineApiSpecification(DOCUMENT).build();

    private static List<String> check(int status, String contentType, String body, String requestBody) {
        HttpApi.Response response = new HttpApi.Response(status, Map.of("Content-Type", List.of(contentType)), body);
        return ApiContractValidator.violations(VALIDATOR, "POST", "/api/v1/things",
                Map.of("Content-Type", "application/json"), requestBody, response);
    }

    @Test
    void declaredExchangesPass() {
        assertThat(check(202, "application/json", "{\"id\":\"a\",\"state\":null}", "{\"n\":1}")).isEmpty();
        assertThat(check(400, "application/problem+json", "{\"title\":\"x\"}", "{\"n\":\"x\"}")).isEmpty();
    }

    @Test
    void anythingUndeclaredIsAViolation() {
        assertThat(check(200, "application/json", "{\"id\":\"a\"}", "{\"n\":1}"))
                .anyMatch(v -> v.startsWith("validation.response.status.unknown"));
        assertThat(check(409, "application/problem+json", "{}", "{\"n\":1}"))
                .anyMatch(v -> v.startsWith("validation.response.status.unknown"));
        assertThat(check(202, "text/plain", "hello", "{\"n\":1}"))
                .anyMatch(v -> v.startsWith("validation.response.contentType"));
        assertThat(check(202, "application/json", "{\"id\":5}", "{\"n\":1}"))
                .anyMatch(v -> v.startsWith("validation.response.body.schema"));
        // a request the API accepted must conform too
        assertThat(check(202, "application/json", "{\"id\":\"a\"}", "{\"n\":\"not a number\"}"))
                .anyMatch(v -> v.startsWith("validation.request.body.schema"));
    }

    @Test
    void theServedDocumentWrittenByApiContractItParses() throws Exception {
        Path served = Path.of("target", "api-docs.json");
        if (Files.exists(served)) {
            assertThat(OpenApiInteractionValidator.createForInlineApiSpecification(Files.readString(served)).build())
                    .isNotNull();
        }
    }
}
