package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.DashboardSession;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.orchestrator.tenancy.ApiKeys;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 53, the weak points of the keys and the operators' surfaces: a NUL in a query parameter (500), a revoked
 * operator's open session reading the OpenAPI document, an expired key rotated into a live one, a merchant's key
 * given staff roles, and roles answered as a string.
 */
class WeakPointsIT extends IntegrationTestBase {

    static final String ADMIN_KEY = "demo-admin-key";

    @Autowired
    ApiKeys apiKeys;

    @Test
    void aControlCharacterInAQueryParameterIsA400NamingItOnEverySurface() {
        HttpApi.Response deadLetters = api.send("GET", "/api/v1/operator/dead-letters?checkoutId=%00",
                HttpApi.OPERATOR_KEY, Map.of(), null);
        assertProblem(deadLetters, 400, "invalid-parameter", "'checkoutId'");
        assertProblem(api.send("GET", "/api/v1/checkouts?limit=1&state=completed%0d%0aX", HttpApi.DEMO_KEY, Map.of(),
                null), 400, "invalid-parameter", "'state'");

        DashboardSession operator = new DashboardSession(port);
        assertThat(operator.signIn("operator", HttpApi.OPERATOR_KEY)).endsWith("/dashboard");
        assertProblem(operator.get("/dashboard/api/checkouts?tenant=%00"), 400, "invalid-parameter", "'tenant'");
        assertThat(operator.get("/dashboard/api/checkouts?tenant=demo").status()).isEqualTo(200);
        assertThat(api.send("GET", "/api/v1/operator/dead-letters", HttpApi.OPERATOR_KEY, Map.of(), null).status())
                .isEqualTo(200);
    }

    @Test
    void aRevokedOperatorsOpenSessionNoLongerGetsTheApiDocumentOrSwaggerUi() {
        ApiKeys.KeyInfo key = apiKeys.issue("operator", EnumSet.of(Caller.Role.OPERATOR_READ), "weak-docs", "test");
        DashboardSession browser = new DashboardSession(port);
        assertThat(browser.signIn("operator", key.key())).endsWith("/dashboard");
        assertThat(browser.get("/v3/api-docs").status()).isEqualTo(200);
        assertThat(browser.get("/swagger-ui/index.html").status()).isEqualTo(200);

        apiKeys.revoke(key.keyId(), "test");
        HttpApi.Response docs = browser.get("/v3/api-docs");
        assertProblem(docs, 401, "unauthorized", "");
        assertThat(docs.body()).doesNotContain("\"paths\"");
        HttpApi.Response ui = browser.get("/swagger-ui/index.html");
        assertThat(ui.status()).as("a page request that does not ask for HTML; a browser is sent to /login")
                .isEqualTo(401);
        assertThat(ui.header("Content-Type")).startsWith("application/problem+json");
        assertThat(browser.get("/dashboard/api/me").status()).isEqualTo(401);
    }

    @Test
    void anExpiredKeyIsNotRotatedIntoALiveOne() {
        ApiKeys.KeyInfo key = apiKeys.issue("demo", EnumSet.of(Caller.Role.TENANT), "weak-rotate", "test");
        HttpApi.Response rotated = admin("POST", "/api/v1/admin/keys/" + key.keyId() + "/rotate",
                "{\"overlap\":\"PT0S\",\"reason\":\"leaked\"}");
        assertThat(rotated.status()).as(rotated.body()).isEqualTo(201);
        assertThat(api.send("GET", "/api/v1/checkouts?limit=1", key.key(), Map.of(), null).status()).isEqualTo(401);

        long keys = jdbc.queryForObject("SELECT count(*) FROM api_keys", Long.class);
        HttpApi.Response again = admin("POST", "/api/v1/admin/keys/" + key.keyId() + "/rotate",
                "{\"overlap\":\"PT24H\",\"reason\":\"bring it back\"}");
        assertProblem(again, 409, "key-expired", key.keyId());
        assertThat(again.body()).doesNotContain("ck_");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM api_keys", Long.class)).isEqualTo(keys);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM audit_log WHERE target = ? AND action = 'key.rotate'",
                Long.class, "key:" + key.keyId())).isEqualTo(1);
    }

    @Test
    void aKeyIsAMerchantsOrStaffsNeverBothAndItsRolesAreAnArray() {
        String shop = "weak-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(admin("POST", "/api/v1/admin/tenants", "{\"tenantId\":\"" + shop
                + "\",\"name\":\"Shop\",\"reason\":\"test\"}").status()).isEqualTo(201);
        long keys = jdbc.queryForObject("SELECT count(*) FROM api_keys", Long.class);
        for (String roles : List.of("[\"tenant\",\"operator-repair\"]", "[\"tenant\",\"admin\"]",
                "[\"tenant\",\"operator-read\"]")) {
            assertProblem(admin("POST", "/api/v1/admin/tenants/" + shop + "/keys", "{\"roles\":" + roles
                    + ",\"reason\":\"test\"}"), 422, "mixed-roles", "'tenant' cannot be combined");
        }

        HttpApi.Response merchant = admin("POST", "/api/v1/admin/tenants/" + shop + "/keys",
                "{\"roles\":[\"tenant\"],\"label\":\"shop backend\",\"reason\":\"onboarding\"}");
        assertThat(merchant.status()).as(merchant.body()).isEqualTo(201);
        assertThat(merchant.json().get("roles").isArray()).as(merchant.body()).isTrue();
        assertThat(merchant.json().get("roles")).hasSize(1);
        assertThat(merchant.json().get("roles").get(0).asText()).isEqualTo("tenant");
        String keyId = merchant.json().get("keyId").asText();
        assertThat(jdbc.queryForObject("SELECT details FROM audit_log WHERE action = 'key.issue' AND target = ?",
                String.class, "key:" + keyId)).contains("roles=tenant");

        // the merchant's account takes no staff key either
        for (String roles : List.of("[\"operator-repair\"]", "[\"admin\"]")) {
            assertProblem(admin("POST", "/api/v1/admin/tenants/" + shop + "/keys", "{\"roles\":" + roles
                    + ",\"reason\":\"test\"}"), 422, "mixed-roles", "merchant");
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM api_keys", Long.class)).isEqualTo(keys + 1);

        JsonNode listed = admin("GET", "/api/v1/admin/tenants/" + shop + "/keys", null).json();
        assertThat(listed.get(0).get("roles").isArray()).isTrue();
        HttpApi.Response operators = admin("POST", "/api/v1/admin/tenants/operator/keys",
                "{\"roles\":[\"operator-read\",\"operator-repair\"],\"reason\":\"test\"}");
        assertThat(operators.status()).as(operators.body()).isEqualTo(201);
        assertThat(operators.json().get("roles").toString()).isEqualTo("[\"operator-read\",\"operator-repair\"]");
    }

    private HttpApi.Response admin(String method, String path, String body) {
        return api.send(method, path, ADMIN_KEY, Map.of(), body);
    }

    private static void assertProblem(HttpApi.Response r, int status, String type, String detailPart) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
        assertThat(r.json().get("type").asText()).endsWith(":" + type);
        assertThat(r.json().get("detail").asText() + r.json().path("errors")).contains(detailPart);
    }
}
