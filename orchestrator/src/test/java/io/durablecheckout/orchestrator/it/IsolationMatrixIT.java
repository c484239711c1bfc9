package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;

import com.fasterxml.jackson.databind.JsonNode;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.tenancy.ApiKeys;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 10, acceptance 1. Every endpoint the application maps (read from Spring MVC's handler mappings, so an
 * endpoint added later is in the matrix without anyone listing it) × every kind of caller: the owning tenant, a
 * second valid tenant, each role alone, no key, a revoked key. The expected answer follows from the path's access
 * rule (the same prefixes the security chain uses); an endpoint outside every rule fails the test until it is
 * classified. Requests that a caller may make are sent in a form that changes nothing (no If-Match, no reason, an
 * already cancelled checkout), so the matrix can run against the shared context.
 */
class IsolationMatrixIT extends IntegrationTestBase {

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    RequestMappingHandlerMapping mappings;

    @Autowired
    ApiKeys apiKeys;

    @Autowired
    InventoryAdmin inventory;

    enum Access { SESSION, TENANT_LIST, TENANT_OWN, TENANT_OR_OPERATOR_READ, TENANT, OPERATOR_READ, OPERATOR_REPAIR, ADMIN, SIGNED, PUBLIC_DEMO }

    record Endpoint(RequestMethod method, String pattern) {
        @Override
        public String toString() {
            return method + " " + pattern;
        }
    }

    record Who(String name, String key, Set<Caller.Role> roles, boolean owner) {
    }

    @Test
    void everyEndpointAnswersEveryCallerAsItsRuleSaysAndNothingLeaks() {
        // the own tenant's checkout: cancelled (declined payment), so a permitted cancel changes nothing
        String sku = "ISO-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, 10);
        HttpApi.Response created = api.startCheckout("iso-" + UUID.randomUUID(),
                HttpApi.checkoutBody(sku, 1, 700, "tok_decline"));
        assertThat(created.status()).isEqualTo(202);
        String own = created.json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> "cancelled".equals(api.get("/api/v1/checkouts/" + own)
                .json().path("state").asText()));

        String second = "iso-" + UUID.randomUUID().toString().substring(0, 8);
        apiKeys.createTenant(second, "Second shop");
        String secondKey = apiKeys.issue(second, EnumSet.of(Caller.Role.TENANT), "iso", "test").key();
        ApiKeys.KeyInfo revoked = apiKeys.issue("demo", EnumSet.of(Caller.Role.TENANT), "iso-revoked", "test");
        apiKeys.revoke(revoked.keyId(), "test");
        String throwawayKeyId = apiKeys.issue(second, EnumSet.of(Caller.Role.TENANT), "iso-target", "test").keyId();

        List<Who> callers = List.of(
                new Who("own tenant", HttpApi.DEMO_KEY, EnumSet.of(Caller.Role.TENANT), true),
                new Who("second tenant", secondKey, EnumSet.of(Caller.Role.TENANT), false),
                new Who("operator-read", roleKey(Caller.Role.OPERATOR_READ), EnumSet.of(Caller.Role.OPERATOR_READ), false),
                new Who("operator-repair", roleKey(Caller.Role.OPERATOR_REPAIR), EnumSet.of(Caller.Role.OPERATOR_REPAIR), false),
                new Who("admin", roleKey(Caller.Role.ADMIN), EnumSet.of(Caller.Role.ADMIN), false),
                new Who("no key", null, Set.of(), false),
                new Who("revoked key", revoked.key(), Set.of(), false));

        Map<Endpoint, Access> endpoints = endpoints();
        assertThat(endpoints).isNotEmpty();
        List<String> failures = new ArrayList<>();
        int cells = 0;
        for (Map.Entry<Endpoint, Access> e : endpoints.entrySet()) {
            Endpoint endpoint = e.getKey();
            if (e.getValue() == Access.PUBLIC_DEMO) continue; // static pages, no data (the simulator is not served here)
            String path = endpoint.pattern()
                    .replace("{checkoutId}", own)
                    .replace("{tenantId}", second)
                    .replace("{keyId}", throwawayKeyId)
                    .replace("{processor}", "payments")
                    .replace("{n}", "1") // an event number: a made-up word is a 400 before the ownership check
                    .replaceAll("\\{[^}]*}", "x");
            for (Who who : callers) {
                cells++;
                HttpApi.Response r = api.send(endpoint.method().name(), path, who.key(), Map.of(),
                        endpoint.method() == RequestMethod.GET ? null : "{}");
                int expected = e.getValue() == Access.SESSION ? -1 : expected(e.getValue(), who);
                boolean ok = expected == -1 ? r.status() >= 300 && r.status() < 500 // a key is no dashboard session
                        : expected == ALLOWED_ANY ? r.status() != 401 && r.status() != 403 && r.status() < 500
                        : expected == 0 ? r.status() != 401 && r.status() != 403 && r.status() != 404 && r.status() < 500
                        : r.status() == expected;
                if (!ok) {
                    failures.add(endpoint + " as " + who.name() + ": " + r.status() + " (expected "
                            + (expected == 0 ? "allowed" : expected == ALLOWED_ANY ? "allowed (404 fine)"
                            : expected == -1 ? "no session: 3xx or 4xx" : expected) + ") " + r.body());
                }
                if (r.status() < 300 && !who.owner() && r.body().contains(own)
                        && !who.roles().contains(Caller.Role.OPERATOR_READ)) {
                    failures.add(endpoint + " as " + who.name() + " leaked the own tenant's checkout " + own);
                }
            }
        }
        assertThat(failures).as("%d cells", cells).isEmpty();

        // a mixed-role key (its own tenant plus operator-read) reads across tenants but writes only its own
        String mixedKey = apiKeys.issue(second, EnumSet.of(Caller.Role.TENANT, Caller.Role.OPERATOR_READ),
                "iso-mixed", "test").key();
        long eventsBefore = count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?", own);
        HttpApi.Response crossCancel = api.send("POST", "/api/v1/checkouts/" + own + "/cancel", mixedKey, Map.of(),
                "{\"reason\":\"not yours\"}");
        assertThat(crossCancel.status()).as("cancel with a mixed-role key of another tenant: %s", crossCancel.body())
                .isEqualTo(404);
        HttpApi.Response crossCapture = api.send("POST", "/api/v1/checkouts/" + own + "/capture", mixedKey, Map.of(),
                "{\"amount\":{\"minor\":1,\"currency\":\"EUR\"}}");
        assertThat(crossCapture.status()).as("capture with a mixed-role key of another tenant: %s",
                crossCapture.body()).isEqualTo(404);
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?", own))
                .as("events of the other tenant's checkout").isEqualTo(eventsBefore);

        // lists: a tenant's list never holds another tenant's ids (once the read model, a second behind, has the row)
        await().atMost(Duration.ofSeconds(10)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ?", own) == 1);
        JsonNode secondList = api.send("GET", "/api/v1/checkouts?limit=500", secondKey, Map.of(), null).json();
        assertThat(secondList.findValuesAsText("checkoutId")).doesNotContain(own);
        JsonNode ownList = api.get("/api/v1/checkouts?limit=500").json();
        for (String id : ownList.findValuesAsText("checkoutId")) {
            assertThat(count("SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND tenant_id <> 'demo'", id))
                    .as("demo's list holds %s of another tenant", id).isZero();
        }
    }

    /** Allowed, and the resource may not exist (operator and admin paths address ids the matrix makes up). */
    static final int ALLOWED_ANY = 1;

    /** 0 = allowed on the caller's own checkout (anything but 401, 403, 404 or 5xx); else the exact status. */
    private static int expected(Access access, Who who) {
        if (access == Access.SIGNED) return 401; // no signature: refused whatever the key
        if (who.key() == null || who.roles().isEmpty()) return 401;
        boolean tenant = who.roles().contains(Caller.Role.TENANT);
        return switch (access) {
            case TENANT_LIST -> tenant || who.roles().contains(Caller.Role.OPERATOR_READ) ? ALLOWED_ANY : 403;
            case TENANT_OWN -> tenant ? (who.owner() ? 0 : 404) : 403;
            case TENANT_OR_OPERATOR_READ -> tenant ? (who.owner() ? 0 : 404)
                    : who.roles().contains(Caller.Role.OPERATOR_READ) ? 0 : 403;
            case TENANT -> tenant ? ALLOWED_ANY : 403;
            case OPERATOR_READ -> who.roles().contains(Caller.Role.OPERATOR_READ) ? ALLOWED_ANY : 403;
            case OPERATOR_REPAIR -> who.roles().contains(Caller.Role.OPERATOR_REPAIR) ? ALLOWED_ANY : 403;
            case ADMIN -> who.roles().contains(Caller.Role.ADMIN) ? ALLOWED_ANY : 403;
            case SIGNED, PUBLIC_DEMO, SESSION -> throw new IllegalStateException();
        };
    }

    /** Every mapped endpoint with its access rule, from the path as the security chain reads it. */
    private Map<Endpoint, Access> endpoints() {
        Map<Endpoint, Access> out = new LinkedHashMap<>();
        Set<String> unclassified = new TreeSet<>();
        for (RequestMappingInfo info : mappings.getHandlerMethods().keySet()) {
            Set<String> patterns = info.getPatternValues();
            Set<RequestMethod> methods = info.getMethodsCondition().getMethods();
            for (String pattern : patterns) {
                for (RequestMethod method : methods.isEmpty() ? Set.of(RequestMethod.GET) : methods) {
                    Access access = access(method, pattern);
                    if (access == null) unclassified.add(method + " " + pattern);
                    else out.put(new Endpoint(method, pattern), access);
                }
            }
        }
        assertThat(unclassified).as("endpoints outside every access rule: classify them in SecurityConfiguration "
                + "and here").isEmpty();
        return out;
    }

    private static Access access(RequestMethod method, String pattern) {
        boolean get = method == RequestMethod.GET || method == RequestMethod.HEAD;
        if (pattern.startsWith("/api/v1/payment-callbacks")) return Access.SIGNED; // the generic and Stripe's
        if (pattern.startsWith("/api/v1/admin/")) return Access.ADMIN;
        if (pattern.startsWith("/api/v1/operator/")) return get ? Access.OPERATOR_READ : Access.OPERATOR_REPAIR;
        if (pattern.equals("/api/v1/checkouts")) return get ? Access.TENANT_LIST : Access.TENANT;
        if (pattern.startsWith("/api/v1/checkouts/")) return get ? Access.TENANT_OR_OPERATOR_READ : Access.TENANT_OWN;
        if (pattern.startsWith("/v3/api-docs")) return Access.OPERATOR_READ;
        if (pattern.startsWith("/swagger-ui")) return Access.PUBLIC_DEMO; // a static page; its document is protected
        if (pattern.equals("/error") || pattern.equals("/login")) return Access.PUBLIC_DEMO; // no data behind them
        // The operators' dashboard: its own chain (@Order(1)), a session from the sign-in form; its tests cover roles.
        if (pattern.equals("/dashboard") || pattern.startsWith("/dashboard/")) return Access.SESSION;
        return null;
    }

    private String roleKey(Caller.Role role) {
        return apiKeys.issue(role == Caller.Role.ADMIN ? "admin" : "operator", EnumSet.of(role), "iso", "test").key();
    }
}
