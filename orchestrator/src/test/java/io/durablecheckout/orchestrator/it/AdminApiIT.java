package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 10: tenants and keys through the admin API; rotation overlap, immediate revocation, an audit row for each. */
class AdminApiIT extends IntegrationTestBase {

    static final String ADMIN_KEY = "demo-admin-key";

    @Test
    void anAdminCreatesATenantIssuesRotatesAndRevokesItsKeysAndEveryActionIsAudited() {
        String tenant = "t-" + UUID.randomUUID().toString().substring(0, 8);
        long auditBefore = count("SELECT count(*) FROM audit_log");

        // without a reason nothing happens
        assertThat(post("/api/v1/admin/tenants", ADMIN_KEY, "{\"tenantId\":\"" + tenant + "\",\"name\":\"Shop\"}").status())
                .isEqualTo(400);
        assertThat(count("SELECT count(*) FROM tenants WHERE tenant_id = ?", tenant)).isZero();
        // neither tenants nor operators may administer
        assertThat(post("/api/v1/admin/tenants", HttpApi.DEMO_KEY, tenantBody(tenant)).status()).isEqualTo(403);
        assertThat(post("/api/v1/admin/tenants", HttpApi.OPERATOR_KEY, tenantBody(tenant)).status()).isEqualTo(403);

        assertThat(post("/api/v1/admin/tenants", ADMIN_KEY, tenantBody(tenant)).status()).isEqualTo(201);
        assertThat(post("/api/v1/admin/tenants", ADMIN_KEY, tenantBody(tenant)).status()).isEqualTo(409);

        HttpApi.Response issued = post("/api/v1/admin/tenants/" + tenant + "/keys", ADMIN_KEY,
                "{\"roles\":[\"tenant\"],\"label\":\"checkout backend\",\"reason\":\"onboarding\"}");
        assertThat(issued.status()).as(issued.body()).isEqualTo(201);
        String key = issued.json().get("key").asText();
        String keyId = issued.json().get("keyId").asText();
        assertThat(key).startsWith("ck_").hasSizeGreaterThanOrEqualTo(3 + 22); // >= 128 random bits, base64url
        assertThat(count("SELECT count(*) FROM api_keys WHERE key_sha256 = ? OR roles LIKE ?", key, "%" + key + "%"))
                .isZero(); // only the hash is stored
        assertThat(get("/api/v1/checkouts?limit=5", key).status()).isEqualTo(200);
        assertThat(get("/api/v1/admin/tenants/" + tenant + "/keys", ADMIN_KEY).body()).doesNotContain(key);

        // rotation with an overlap: both keys work until the old one expires
        HttpApi.Response rotated = post("/api/v1/admin/keys/" + keyId + "/rotate", ADMIN_KEY,
                "{\"overlap\":\"PT1H\",\"reason\":\"yearly rotation\"}");
        assertThat(rotated.status()).as(rotated.body()).isEqualTo(201);
        String newKey = rotated.json().get("key").asText();
        String newKeyId = rotated.json().get("keyId").asText();
        assertThat(get("/api/v1/checkouts?limit=5", key).status()).isEqualTo(200);
        assertThat(get("/api/v1/checkouts?limit=5", newKey).status()).isEqualTo(200);

        // a rotation without overlap ends the old key at once
        HttpApi.Response again = post("/api/v1/admin/keys/" + newKeyId + "/rotate", ADMIN_KEY,
                "{\"overlap\":\"PT0S\",\"reason\":\"key leaked\"}");
        assertThat(again.status()).isEqualTo(201);
        assertThat(get("/api/v1/checkouts?limit=5", newKey).status()).isEqualTo(401);

        // revocation: the very next request is refused
        assertThat(post("/api/v1/admin/keys/" + keyId + "/revoke", ADMIN_KEY, "{\"reason\":\"offboarding\"}").status())
                .isEqualTo(200);
        HttpApi.Response refused = get("/api/v1/checkouts?limit=5", key);
        assertThat(refused.status()).isEqualTo(401);
        assertThat(refused.header("Content-Type")).startsWith("application/problem+json");

        JsonNode keys = get("/api/v1/admin/tenants/" + tenant + "/keys", ADMIN_KEY).json();
        assertThat(keys).hasSize(3);
        assertThat(count("SELECT count(*) FROM audit_log")).isEqualTo(auditBefore + 5);
        assertThat(count("SELECT count(*) FROM audit_log WHERE actor LIKE 'admin/key_%' AND reason IN "
                + "('onboarding', 'yearly rotation', 'key leaked', 'offboarding', 'new shop') AND at > now() - interval '1 minute'"))
                .isGreaterThanOrEqualTo(5);
        assertThat(count("SELECT count(*) FROM audit_log WHERE action = 'key.revoke' AND target = ?", "key:" + keyId))
                .isEqualTo(1);
    }

    /**
     * Issue 26, acceptance 2: from an admin key to a new tenant's first completed checkout with API calls only (the
     * admin key itself comes from {@code create-admin-key}: AdminKeyCommandTest).
     */
    @Test
    void aNewTenantGetsItsKeyAndStockAndCompletesAFirstCheckoutWithoutSql() {
        String tenant = "shop-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(post("/api/v1/admin/tenants", ADMIN_KEY, tenantBody(tenant)).status()).isEqualTo(201);
        String key = post("/api/v1/admin/tenants/" + tenant + "/keys", ADMIN_KEY,
                "{\"roles\":[\"tenant\"],\"label\":\"shop backend\",\"reason\":\"onboarding\"}").json()
                .get("key").asText();
        String stock = "{\"sku\":\"SKU-0001\",\"quantity\":100,\"reason\":\"opening stock\"}";
        assertThat(post("/api/v1/admin/tenants/" + tenant + "/stock", key, stock).status()).isEqualTo(403);
        assertThat(post("/api/v1/admin/tenants/" + tenant + "/stock", ADMIN_KEY,
                "{\"sku\":\"SKU 1\",\"quantity\":-1,\"reason\":\"x\"}").status()).isEqualTo(400);
        HttpApi.Response added = post("/api/v1/admin/tenants/" + tenant + "/stock", ADMIN_KEY, stock);
        assertThat(added.status()).as(added.body()).isEqualTo(201);
        assertThat(post("/api/v1/admin/tenants/" + tenant + "/stock", ADMIN_KEY, stock).status()).isEqualTo(409);
        assertThat(count("SELECT available FROM stock WHERE tenant_id = ? AND sku = 'SKU-0001'", tenant)).isEqualTo(100);
        assertThat(count("SELECT count(*) FROM audit_log WHERE action = 'stock.add' AND target = ?",
                "stock:" + tenant + "/SKU-0001")).isEqualTo(1);

        HttpApi.Response started = api.send("POST", "/api/v1/checkouts", key,
                Map.of("Idempotency-Key", "first-" + tenant), HttpApi.checkoutBody("SKU-0001", 2, 3998, "tok_approve"));
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        String id = started.json().get("checkoutId").asText();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'completed'", id) == 1);
        assertThat(count("SELECT sold FROM stock WHERE tenant_id = ? AND sku = 'SKU-0001'", tenant)).isEqualTo(2);
    }

    /**
     * Issue 52, Build 2: the merchant's names on receipts, set by an admin (audited, validated), recorded in a new
     * checkout's first event with the request's receipt fields; prices that do not add up are a 422 naming the fields,
     * and the Idempotency-Key is refused as an order reference.
     */
    @Test
    void anAdminSetsTheMerchantsNamesAndANewCheckoutRecordsThemWithItsPricedLines() {
        String tenant = "merchant-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        assertThat(post("/api/v1/admin/tenants", ADMIN_KEY, tenantBody(tenant)).status()).isEqualTo(201);
        String path = "/api/v1/admin/tenants/" + tenant + "/merchant";
        assertThat(get(path, ADMIN_KEY).json().get("merchantName").asText()).isEqualTo("Shop");
        String names = "{\"merchantName\":\"Ada's Tea\",\"senderName\":\"Ada from Ada's Tea\",\"reason\":\"rebrand\"}";
        assertThat(put(path, HttpApi.DEMO_KEY, names).status()).isEqualTo(403);
        assertThat(put("/api/v1/admin/tenants/no-such-tenant/merchant", ADMIN_KEY, names).status()).isEqualTo(404);
        HttpApi.Response bad = put(path, ADMIN_KEY, "{\"merchantName\":\"Ada\\u0007\",\"senderName\":\"<x@y>\"}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body()).contains("merchantName: printable").contains("senderName: no <").contains("reason: required");
        HttpApi.Response set = put(path, ADMIN_KEY, names);
        assertThat(set.status()).as(set.body()).isEqualTo(200);
        assertThat(set.json().get("senderName").asText()).isEqualTo("Ada from Ada's Tea");
        assertThat(count("SELECT count(*) FROM audit_log WHERE action = 'tenant.merchant' AND target = ? "
                + "AND reason = 'rebrand'", "tenant:" + tenant)).isEqualTo(1);

        String key = post("/api/v1/admin/tenants/" + tenant + "/keys", ADMIN_KEY,
                "{\"roles\":[\"tenant\"],\"reason\":\"shop\"}").json().get("key").asText();
        assertThat(post("/api/v1/admin/tenants/" + tenant + "/stock", ADMIN_KEY,
                "{\"sku\":\"TEA-1\",\"quantity\":10,\"reason\":\"x\"}").status()).isEqualTo(201);
        String priced = "{\"items\":[{\"sku\":\"TEA-1\",\"quantity\":2,\"name\":\"Sencha\",\"unitPrice\":1000}],"
                + "\"shipping\":500,\"tax\":%d,\"orderReference\":\"%s\",\"amount\":{\"minor\":2500,\"currency\":\"EUR\"},"
                + "\"paymentToken\":\"tok_approve\",\"customerEmail\":\"a@example.com\"}";
        HttpApi.Response mismatch = api.send("POST", "/api/v1/checkouts", key, Map.of("Idempotency-Key", "m1-" + tenant),
                priced.formatted(100, "ORD-1"));
        assertThat(mismatch.status()).as(mismatch.body()).isEqualTo(422);
        assertThat(mismatch.json().get("errors").get(0).asText()).startsWith("amount.minor: 2500, but the receipt's "
                + "lines add up to 2600");
        HttpApi.Response keyAsReference = api.send("POST", "/api/v1/checkouts", key,
                Map.of("Idempotency-Key", "m1-" + tenant), priced.formatted(0, "m1-" + tenant));
        assertThat(keyAsReference.status()).isEqualTo(400);
        assertThat(keyAsReference.body()).contains("orderReference: must not be the Idempotency-Key");
        HttpApi.Response started = api.send("POST", "/api/v1/checkouts", key, Map.of("Idempotency-Key", "m1-" + tenant),
                priced.formatted(0, "ORD-1"));
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        String created = jdbc.queryForObject("SELECT convert_from(payload, 'UTF8') FROM domainevententry "
                + "WHERE aggregateidentifier = ? AND sequencenumber = 0", String.class,
                started.json().get("checkoutId").asText());
        assertThat(created).contains("\"merchantName\":\"Ada's Tea\"").contains("\"senderName\":\"Ada from Ada's Tea\"")
                .contains("\"orderReference\":\"ORD-1\"").contains("\"name\":\"Sencha\"").contains("\"unitPriceMinor\":1000");
    }

    /**
     * Issue 51, Build 6: a tenant's event retention through the admin API instead of SQL, audited with the write; what
     * applies is never below the chargeback window; null restores the default; bad input changes nothing.
     */
    @Test
    void anAdminSetsAndClearsATenantsRetentionAuditedAndBadInputChangesNothing() {
        String tenant = "keep-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(post("/api/v1/admin/tenants", ADMIN_KEY, tenantBody(tenant)).status()).isEqualTo(201);
        String path = "/api/v1/admin/tenants/" + tenant + "/retention";
        String audited = "SELECT count(*) FROM audit_log WHERE action = 'tenant.retention' AND target = ?";

        // the product's defaults (180 days; a 120-day chargeback window) until the tenant has its own
        JsonNode fresh = get(path, ADMIN_KEY).json();
        assertThat(fresh.get("tenantId").asText()).isEqualTo(tenant);
        assertThat(fresh.get("days").isNull()).as(fresh.toString()).isTrue();
        assertThat(fresh.get("effectiveDays").asLong()).isEqualTo(180);
        assertThat(fresh.get("chargebackWindowDays").asLong()).isEqualTo(120);

        HttpApi.Response set = put(path, ADMIN_KEY, "{\"days\":365,\"reason\":\"keep a year\"}");
        assertThat(set.status()).as(set.body()).isEqualTo(200);
        assertThat(set.json().get("days").asInt()).isEqualTo(365);
        assertThat(set.json().get("effectiveDays").asLong()).isEqualTo(365);
        assertThat(retentionRow(tenant)).isEqualTo(365);
        assertThat(count(audited + " AND reason = 'keep a year' AND details = 'days=365' AND actor LIKE 'admin/key_%'",
                "tenant:" + tenant)).isEqualTo(1);
        assertThat(get(path, ADMIN_KEY).json()).isEqualTo(set.json());

        // shorter than the chargeback window: stored as set, applied as the window (nothing moves younger)
        HttpApi.Response shorter = put(path, ADMIN_KEY, "{\"days\":0,\"reason\":\"as short as allowed\"}");
        assertThat(shorter.status()).as(shorter.body()).isEqualTo(200);
        assertThat(shorter.json().get("days").asInt()).isZero();
        assertThat(shorter.json().get("effectiveDays").asLong()).isEqualTo(120);
        assertThat(retentionRow(tenant)).isZero();

        // bad input: 400 naming each mistake; no row changed, no audit row
        long auditBefore = count(audited, "tenant:" + tenant);
        for (String bad : new String[]{"{\"days\":\"30\",\"reason\":\"x\"}", "{\"days\":12.5,\"reason\":\"x\"}",
                "{\"days\":-1,\"reason\":\"x\"}", "{\"days\":36501,\"reason\":\"x\"}", "{\"days\":true,\"reason\":\"x\"}",
                "{\"days\":99999999999,\"reason\":\"x\"}", "{\"reason\":\"x\"}"}) {
            HttpApi.Response refused = put(path, ADMIN_KEY, bad);
            assertThat(refused.status()).as(bad + ": " + refused.body()).isEqualTo(400);
            assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
            assertThat(refused.json().get("errors").get(0).asText()).as(bad).startsWith("days: ");
        }
        HttpApi.Response two = put(path, ADMIN_KEY, "{\"days\":12.5}");
        assertThat(two.status()).isEqualTo(400);
        assertThat(two.json().get("errors")).hasSize(2);
        assertThat(two.body()).contains("days: whole days, 0 to 36500").contains("reason: required");
        HttpApi.Response unknownField = put(path, ADMIN_KEY, "{\"days\":30,\"reason\":\"x\",\"dayz\":30}");
        assertThat(unknownField.status()).as(unknownField.body()).isEqualTo(400);
        assertThat(unknownField.body()).contains("dayz");
        assertThat(put(path, ADMIN_KEY, "").status()).isEqualTo(400);
        assertThat(retentionRow(tenant)).isZero();
        assertThat(count(audited, "tenant:" + tenant)).isEqualTo(auditBefore);

        // not an admin, or no such tenant: refused, nothing written
        String days = "{\"days\":30,\"reason\":\"x\"}";
        assertThat(put(path, HttpApi.DEMO_KEY, days).status()).isEqualTo(403);
        assertThat(put(path, HttpApi.OPERATOR_KEY, days).status()).isEqualTo(403);
        assertThat(get(path, HttpApi.DEMO_KEY).status()).isEqualTo(403);
        HttpApi.Response unknown = put("/api/v1/admin/tenants/no-such-tenant/retention", ADMIN_KEY, days);
        assertThat(unknown.status()).as(unknown.body()).isEqualTo(404);
        assertThat(unknown.header("Content-Type")).startsWith("application/problem+json");
        assertThat(get("/api/v1/admin/tenants/no-such-tenant/retention", ADMIN_KEY).status()).isEqualTo(404);
        assertThat(retentionRow(tenant)).isZero();
        assertThat(count(audited, "tenant:" + tenant)).isEqualTo(auditBefore);

        // null: the tenant's own value goes, the default applies again
        HttpApi.Response cleared = put(path, ADMIN_KEY, "{\"days\":null,\"reason\":\"back to the default\"}");
        assertThat(cleared.status()).as(cleared.body()).isEqualTo(200);
        assertThat(cleared.json().get("days").isNull()).as(cleared.body()).isTrue();
        assertThat(cleared.json().get("effectiveDays").asLong()).isEqualTo(180);
        assertThat(retentionRow(tenant)).isNull();
        assertThat(count(audited + " AND details = 'days=null'", "tenant:" + tenant)).isEqualTo(1);
    }

    private Integer retentionRow(String tenant) {
        return jdbc.queryForObject("SELECT event_retention_days FROM tenants WHERE tenant_id = ?", Integer.class, tenant);
    }

    private HttpApi.Response put(String path, String key, String body) {
        return api.send("PUT", path, key, Map.of(), body);
    }

    private static String tenantBody(String tenant) {
        return "{\"tenantId\":\"" + tenant + "\",\"name\":\"Shop\",\"reason\":\"new shop\"}";
    }

    private HttpApi.Response post(String path, String key, String body) {
        return api.send("POST", path, key, Map.of(), body);
    }

    private HttpApi.Response get(String path, String key) {
        return api.send("GET", path, key, Map.of(), null);
    }
}
