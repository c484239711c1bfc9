package io.durablecheckout.orchestrator.web;

import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.orchestrator.http.TextLimits;
import io.durablecheckout.orchestrator.tenancy.AuditLog;
import io.durablecheckout.orchestrator.tenancy.Caller;
import io.durablecheckout.orchestrator.tenancy.MerchantProfiles;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What integrators and customers see of a tenant, for admin keys only (as {@link AdminController}): the merchant's
 * names on receipts, and the provider notifications' signing secret. Changes need a reason and are audited with the
 * change; showing the secret is audited too.
 */
@RestController
@RequestMapping("/api/v1/admin")
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
public class IntegrationAdminController {

    static final int NAME_MAX = 100;

    private final MerchantProfiles merchants;
    private final AuditLog audit;
    private final TransactionTemplate transactions;
    private final List<NotificationSignatures> schemes;

    public IntegrationAdminController(MerchantProfiles merchants, AuditLog audit, TransactionTemplate transactions,
                                      List<NotificationSignatures> schemes) {
        this.merchants = merchants;
        this.audit = audit;
        this.transactions = transactions;
        this.schemes = schemes;
    }

    /** {@code merchantName} and {@code senderName}: absent or null resets to the tenant's name. */
    public record MerchantRequest(String merchantName, String senderName, String reason) {
    }

    @PutMapping("/tenants/{tenantId}/merchant")
    public Map<String, Object> setMerchant(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                           @PathVariable String tenantId,
                                           @RequestBody(required = false) MerchantRequest body) {
        requireAdmin(caller);
        List<String> errors = new ArrayList<>();
        String merchantName = body == null ? null : TextLimits.text(body.merchantName(), "merchantName", NAME_MAX, false, errors);
        String senderName = body == null ? null : TextLimits.text(body.senderName(), "senderName", NAME_MAX, false, errors);
        if (senderName != null && senderName.matches(".*[<>@\"].*")) {
            errors.add("senderName: no <, >, @ or \" (it is shown beside the address on From)");
        }
        String reason = TextLimits.reason(body == null ? null : body.reason(), errors);
        if (!errors.isEmpty()) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request",
                    "The request has " + errors.size() + " error(s)", errors);
        }
        boolean updated = Boolean.TRUE.equals(transactions.execute(tx -> {
            if (!merchants.update(tenantId, merchantName, senderName)) return false;
            audit.record(caller, "tenant.merchant", "tenant:" + tenantId, reason,
                    "merchantName=" + merchantName + " senderName=" + senderName);
            return true;
        }));
        if (!updated) {
            throw new ApiProblemException(HttpStatus.NOT_FOUND, "not-found", "Unknown tenant",
                    "No tenant " + TextLimits.excerpt(tenantId));
        }
        return merchant(tenantId);
    }

    @GetMapping("/tenants/{tenantId}/merchant")
    public Map<String, Object> getMerchant(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                           @PathVariable String tenantId) {
        requireAdmin(caller);
        return merchant(tenantId);
    }

    private Map<String, Object> merchant(String tenantId) {
        MerchantProfiles.Merchant m = merchants.of(tenantId);
        if (m.merchantName() == null) {
            throw new ApiProblemException(HttpStatus.NOT_FOUND, "not-found", "Unknown tenant",
                    "No tenant " + TextLimits.excerpt(tenantId));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("tenantId", tenantId);
        out.put("merchantName", m.merchantName());
        out.put("senderName", m.senderName());
        return out;
    }

    /**
     * The Standard Webhooks secret(s) senders sign provider notifications with, as the standard's libraries take them
     * ({@code whsec_} + base64 of the key), the one to sign with first. Every showing is audited.
     */
    @GetMapping("/webhook-secret")
    public Map<String, Object> webhookSecret(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller) {
        requireAdmin(caller);
        NotificationSignatures standard = schemes.stream()
                .filter(s -> NotificationSignatures.STANDARD_WEBHOOKS.equals(s.scheme())).findFirst()
                .orElseThrow(() -> new ApiProblemException(HttpStatus.NOT_FOUND, "not-found",
                        "No Standard Webhooks endpoint", "This process receives no Standard Webhooks notifications"));
        List<String> secrets = standard.secretsForIntegrators();
        transactions.executeWithoutResult(tx -> audit.record(caller, "webhook-secret.show", "webhook-secret:"
                + NotificationSignatures.STANDARD_WEBHOOKS, "shown to an admin", secrets.size() + " secret(s)"));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scheme", NotificationSignatures.STANDARD_WEBHOOKS);
        out.put("endpoint", PaymentCallbackController.PATH);
        out.put("secret", secrets.get(0));
        out.put("secrets", secrets);
        return out;
    }

    private static void requireAdmin(Caller caller) {
        if (!caller.has(Caller.Role.ADMIN)) {
            throw new ApiProblemException(HttpStatus.FORBIDDEN, "forbidden", "Administrators only",
                    "This action needs an admin API key");
        }
    }
}
