package io.durablecheckout.orchestrator.web;

import io.durablecheckout.orchestrator.http.TextLimits;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.orchestrator.retention.TenantRetention;
import io.durablecheckout.orchestrator.tenancy.ApiKeys;
import io.durablecheckout.orchestrator.tenancy.AuditLog;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

import java.net.URI;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Tenants, their event retention and API keys, for admin keys only ({@code ROLE_ADMIN}; the security chain refuses
 * anyone else before this runs, and {@link #requireAdmin} checks again). Every action needs a reason and is written to
 * the audit log with who and when, in the same transaction as the change. A new key is shown once, in the answer that
 * issued it.
 */
@RestController
@RequestMapping("/api/v1/admin")
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
public class AdminController {

    private static final Pattern TENANT_ID = Pattern.compile("[a-z0-9][a-z0-9-]{1,62}");
    private static final Pattern KEY_ID = Pattern.compile("key_[0-9a-f]{16}");
    /** Longest rotation overlap: an old key should not outlive its replacement by more than a month. */
    private static final Duration MAX_OVERLAP = Duration.ofDays(30);

    private final ApiKeys apiKeys;
    private final AuditLog audit;
    private final TransactionTemplate transactions;
    private final TenantRetention retention;

    private static final Pattern SKU = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final long MAX_QUANTITY = 1_000_000_000L;

    /** Unavailable where this process runs no inventory service (the split deployment's orchestrator). */
    private StockAdmin stock;

    @org.springframework.beans.factory.annotation.Autowired
    void stock(StockAdmin stock) {
        this.stock = stock;
    }

    public AdminController(ApiKeys apiKeys, AuditLog audit, TransactionTemplate transactions,
                           TenantRetention retention) {
        this.apiKeys = apiKeys;
        this.audit = audit;
        this.transactions = transactions;
        this.retention = retention;
    }

    public record TenantRequest(String tenantId, String name, String reason) {
    }

    public record KeyRequest(List<String> roles, String label, String reason) {
    }

    public record RotateRequest(String overlap, String reason) {
    }

    public record ReasonRequest(String reason) {
    }

    @PostMapping("/tenants")
    public ResponseEntity<Map<String, String>> createTenant(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                                            @RequestBody(required = false) TenantRequest body) {
        requireAdmin(caller);
        List<String> errors = new ArrayList<>();
        if (body == null || body.tenantId() == null || !TENANT_ID.matcher(body.tenantId()).matches()) {
            errors.add("tenantId: 2 to 63 of [a-z0-9-], starting with a letter or digit");
        }
        String name = body == null ? null : TextLimits.text(body.name(), "name", 100, true, errors);
        String reason = body == null ? null : TextLimits.reason(body.reason(), errors);
        if (body == null && errors.size() == 1) errors.add("reason: required");
        invalidIf(errors);
        boolean created = Boolean.TRUE.equals(transactions.execute(tx -> {
            if (!apiKeys.createTenant(body.tenantId(), name)) return false;
            audit.record(caller, "tenant.create", "tenant:" + body.tenantId(), reason, name);
            return true;
        }));
        if (!created) {
            throw new ApiProblemException(HttpStatus.CONFLICT, "tenant-exists", "Tenant exists",
                    "Tenant " + body.tenantId() + " already exists");
        }
        return ResponseEntity.created(URI.create("/api/v1/admin/tenants/" + body.tenantId() + "/keys"))
                .body(Map.of("tenantId", body.tenantId(), "name", name));
    }

    @PostMapping("/tenants/{tenantId}/keys")
    public ResponseEntity<ApiKeys.KeyInfo> issue(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                                 @PathVariable String tenantId,
                                                 @RequestBody(required = false) KeyRequest body) {
        requireAdmin(caller);
        knownTenant(tenantId);
        List<String> errors = new ArrayList<>();
        Set<Caller.Role> roles = EnumSet.noneOf(Caller.Role.class);
        if (body == null || body.roles() == null || body.roles().isEmpty() || body.roles().size() > 4) {
            errors.add("roles: one or more of tenant, operator-read, operator-repair, admin");
        } else {
            for (String role : body.roles()) {
                try {
                    roles.add(Caller.Role.ofCode(String.valueOf(role)));
                } catch (IllegalArgumentException e) {
                    errors.add("roles: unknown role '" + TextLimits.excerpt(String.valueOf(role)) + "'");
                }
            }
        }
        String label = body == null ? null : TextLimits.text(body.label(), "label", 100, false, errors);
        String reason = body == null ? TextLimits.reason(null, errors) : TextLimits.reason(body.reason(), errors);
        invalidIf(errors);
        refuseMixedRoles(tenantId, roles);
        ApiKeys.KeyInfo issued = transactions.execute(tx -> {
            ApiKeys.KeyInfo key = apiKeys.issue(tenantId, roles, label, caller.actor());
            audit.record(caller, "key.issue", "key:" + key.keyId(), reason,
                    "tenant=" + tenantId + " roles=" + String.join(",", key.roles()) + " label=" + label);
            return key;
        });
        return ResponseEntity.status(HttpStatus.CREATED).body(issued);
    }

    public record StockRequest(String sku, Long quantity, String reason) {
    }

    /**
     * A SKU of a tenant's catalogue with its opening stock, so a production database reaches its first checkout with
     * no SQL. Like the demo's seeding: a SKU that exists is left as it is (409), never rewritten under reservations.
     */
    @PostMapping("/tenants/{tenantId}/stock")
    public ResponseEntity<Map<String, Object>> addStock(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                                        @PathVariable String tenantId,
                                                        @RequestBody(required = false) StockRequest body) {
        requireAdmin(caller);
        knownTenant(tenantId);
        List<String> errors = new ArrayList<>();
        if (body == null || body.sku() == null || !SKU.matcher(body.sku()).matches()) {
            errors.add("sku: 1 to 64 of [A-Za-z0-9._-]");
        }
        if (body == null || body.quantity() == null || body.quantity() < 0 || body.quantity() > MAX_QUANTITY) {
            errors.add("quantity: 0 to " + MAX_QUANTITY);
        }
        String reason = TextLimits.reason(body == null ? null : body.reason(), errors);
        invalidIf(errors);
        if (stock == null || !stock.available()) {
            throw new ApiProblemException(HttpStatus.NOT_FOUND, "no-inventory-here", "No inventory service here",
                    "This process runs no inventory service: add stock on one that does");
        }
        boolean created = Boolean.TRUE.equals(transactions.execute(tx -> {
            if (!stock.seed(new io.durablecheckout.api.values.TenantId(tenantId), body.sku(), body.quantity())) {
                return false;
            }
            audit.record(caller, "stock.add", "stock:" + tenantId + "/" + body.sku(), reason,
                    "quantity=" + body.quantity());
            return true;
        }));
        if (!created) {
            throw new ApiProblemException(HttpStatus.CONFLICT, "stock-exists", "SKU exists",
                    "Tenant " + tenantId + " has SKU " + body.sku() + " already; its stock is not rewritten");
        }
        return ResponseEntity.status(HttpStatus.CREATED)
                .body(Map.of("tenantId", tenantId, "sku", body.sku(), "quantity", body.quantity()));
    }

    /**
     * {@code days}: whole days, 0 to {@value TenantRetention#MAX_DAYS}, or null to fall back to
     * {@code checkout.retention.default-retention}; required, so a misspelt body clears nothing.
     */
    public record RetentionRequest(@io.swagger.v3.oas.annotations.media.Schema(type = "integer", format = "int32",
            nullable = true, minimum = "0", maximum = "36500") JsonNode days, String reason) {
    }

    /**
     * A tenant's event retention (docs/operations.md, "Retention"): how long a finished checkout's events stay in the
     * hot table after its last event. Never less than the chargeback window, whatever is set ({@code effectiveDays}).
     */
    @PutMapping("/tenants/{tenantId}/retention")
    public TenantRetention.Setting setRetention(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                                @PathVariable String tenantId,
                                                @RequestBody(required = false) RetentionRequest body) {
        requireAdmin(caller);
        knownTenant(tenantId);
        List<String> errors = new ArrayList<>();
        JsonNode given = body == null ? null : body.days();
        Integer days = null;
        if (given == null) {
            errors.add("days: required: whole days, 0 to " + TenantRetention.MAX_DAYS + ", or null for the default");
        } else if (!given.isNull()) {
            if (given.isIntegralNumber() && given.canConvertToInt() && given.intValue() >= 0
                    && given.intValue() <= TenantRetention.MAX_DAYS) {
                days = given.intValue();
            } else {
                errors.add("days: whole days, 0 to " + TenantRetention.MAX_DAYS + ", or null for the default; was "
                        + TextLimits.excerpt(given.toString()));
            }
        }
        String reason = TextLimits.reason(body == null ? null : body.reason(), errors);
        invalidIf(errors);
        Integer value = days;
        transactions.executeWithoutResult(tx -> {
            if (retention.set(tenantId, value)) {
                audit.record(caller, "tenant.retention", "tenant:" + tenantId, reason, "days=" + value);
            }
        });
        return retentionOf(tenantId);
    }

    @GetMapping("/tenants/{tenantId}/retention")
    public TenantRetention.Setting getRetention(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                                @PathVariable String tenantId) {
        requireAdmin(caller);
        knownTenant(tenantId);
        return retentionOf(tenantId);
    }

    private TenantRetention.Setting retentionOf(String tenantId) {
        return retention.of(tenantId).orElseThrow(() -> new ApiProblemException(HttpStatus.NOT_FOUND, "not-found",
                "Unknown tenant", "No tenant " + TextLimits.excerpt(tenantId)));
    }

    @GetMapping("/tenants/{tenantId}/keys")
    public List<ApiKeys.KeyInfo> keys(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                      @PathVariable String tenantId) {
        requireAdmin(caller);
        knownTenant(tenantId);
        return apiKeys.keysOf(tenantId);
    }

    @PostMapping("/keys/{keyId}/rotate")
    public ResponseEntity<ApiKeys.KeyInfo> rotate(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                                  @PathVariable String keyId,
                                                  @RequestBody(required = false) RotateRequest body) {
        requireAdmin(caller);
        knownKey(keyId);
        List<String> errors = new ArrayList<>();
        Duration overlap = Duration.ofHours(24);
        if (body != null && body.overlap() != null) {
            try {
                overlap = Duration.parse(body.overlap());
                if (overlap.isNegative() || overlap.compareTo(MAX_OVERLAP) > 0) {
                    errors.add("overlap: between PT0S and P30D");
                }
            } catch (DateTimeParseException e) {
                errors.add("overlap: an ISO-8601 duration such as PT24H");
            }
        }
        String reason = TextLimits.reason(body == null ? null : body.reason(), errors);
        invalidIf(errors);
        Duration window = overlap;
        ApiKeys.KeyInfo fresh = transactions.execute(tx -> apiKeys.rotate(keyId, window, caller.actor())
                .map(key -> {
                    audit.record(caller, "key.rotate", "key:" + keyId, reason,
                            "replacement=" + key.keyId() + " overlap=" + window);
                    return key;
                }).orElse(null));
        if (fresh == null) {
            if (apiKeys.find(keyId).map(ApiKeys.KeyInfo::revokedAt).isPresent()) {
                throw new ApiProblemException(HttpStatus.CONFLICT, "key-revoked", "Key revoked",
                        "Key " + keyId + " is revoked: issue a new one instead");
            }
            throw new ApiProblemException(HttpStatus.CONFLICT, "key-expired", "Key expired",
                    "Key " + keyId + " has expired: issue a new one instead (only a live key is rotated)");
        }
        return ResponseEntity.status(HttpStatus.CREATED).body(fresh);
    }

    @PostMapping("/keys/{keyId}/revoke")
    public ApiKeys.KeyInfo revoke(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                  @PathVariable String keyId, @RequestBody(required = false) ReasonRequest body) {
        requireAdmin(caller);
        knownKey(keyId);
        List<String> errors = new ArrayList<>();
        String reason = TextLimits.reason(body == null ? null : body.reason(), errors);
        invalidIf(errors);
        transactions.executeWithoutResult(tx -> {
            if (apiKeys.revoke(keyId, caller.actor())) {
                audit.record(caller, "key.revoke", "key:" + keyId, reason, null);
            }
        });
        return apiKeys.find(keyId).orElseThrow();
    }

    /**
     * docs/decisions.md 94: an account is a merchant's (keys with {@code tenant}) or staff's (operator and admin roles),
     * never both, and so is each key: a merchant's key that reads every tenant's checkouts or issues keys would be a
     * merchant with staff powers. 422 problem+json naming the roles; nothing is issued.
     */
    private void refuseMixedRoles(String tenantId, Set<Caller.Role> roles) {
        boolean merchant = roles.contains(Caller.Role.TENANT);
        boolean staff = roles.stream().anyMatch(r -> r != Caller.Role.TENANT);
        String problem = null;
        if (merchant && staff) {
            problem = "roles: 'tenant' cannot be combined with operator-read, operator-repair or admin in one key";
        } else {
            Set<Caller.Role> held = apiKeys.rolesOfUnrevokedKeys(tenantId);
            if (merchant && held.stream().anyMatch(r -> r != Caller.Role.TENANT)) {
                problem = "roles: account " + tenantId + " holds operator or admin keys; 'tenant' keys go on a "
                        + "merchant's account";
            } else if (staff && held.contains(Caller.Role.TENANT)) {
                problem = "roles: account " + tenantId + " is a merchant's (it holds 'tenant' keys); operator and "
                        + "admin keys go on the operators' or administrators' account";
            }
        }
        if (problem != null) {
            throw new ApiProblemException(HttpStatus.UNPROCESSABLE_CONTENT, "mixed-roles", "Roles cannot be mixed",
                    "A key and its account are either a merchant's or staff's, never both", List.of(problem));
        }
    }

    private void knownTenant(String tenantId) {
        if (!TENANT_ID.matcher(tenantId).matches() || !apiKeys.tenantExists(tenantId)) {
            throw new ApiProblemException(HttpStatus.NOT_FOUND, "not-found", "Unknown tenant",
                    "No tenant " + TextLimits.excerpt(tenantId));
        }
    }

    private void knownKey(String keyId) {
        if (!KEY_ID.matcher(keyId).matches() || apiKeys.find(keyId).isEmpty()) {
            throw new ApiProblemException(HttpStatus.NOT_FOUND, "not-found", "Unknown key",
                    "No key " + TextLimits.excerpt(keyId));
        }
    }

    private static void requireAdmin(Caller caller) {
        if (!caller.has(Caller.Role.ADMIN)) {
            throw new ApiProblemException(HttpStatus.FORBIDDEN, "forbidden", "Administrators only",
                    "This action needs an admin API key");
        }
    }

    private static void invalidIf(List<String> errors) {
        if (!errors.isEmpty()) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request",
                    "The request has " + errors.size() + " error(s)", errors);
        }
    }
}
