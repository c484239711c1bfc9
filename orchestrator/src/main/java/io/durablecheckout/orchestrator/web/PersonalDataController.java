package io.durablecheckout.orchestrator.web;

import io.durablecheckout.orchestrator.service.CheckoutService;
import io.durablecheckout.orchestrator.http.TextLimits;
import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.api.privacy.PersonalData;
import io.durablecheckout.orchestrator.tenancy.AuditLog;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Erasure of a checkout's personal data (right to erasure): deletes the checkout's data key, so the e-mail and
 * payment token in its immutable events, the read model and the receipts' records become unreadable for good.
 * Operators with the repair role only; a reason is required; recorded in the audit log. Idempotent.
 */
@RestController
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
public class PersonalDataController {

    private final CheckoutService checkouts;
    private final PersonalData vault;
    private final AuditLog audit;
    private final TransactionTemplate transactions;

    public PersonalDataController(CheckoutService checkouts, PersonalData vault, AuditLog audit,
                                  TransactionTemplate transactions) {
        this.checkouts = checkouts;
        this.vault = vault;
        this.audit = audit;
        this.transactions = transactions;
    }

    public record ErasureRequest(String reason) {
    }

    @PostMapping("/api/v1/operator/checkouts/{checkoutId}/erase-personal-data")
    public Map<String, Object> erase(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller,
                                     @PathVariable String checkoutId,
                                     @RequestBody(required = false) ErasureRequest body) {
        if (!caller.has(Caller.Role.OPERATOR_REPAIR)) {
            throw new ApiProblemException(HttpStatus.FORBIDDEN, "forbidden", "Operators only",
                    "Erasure needs an operator key with the repair role");
        }
        List<String> errors = new ArrayList<>();
        String reason = TextLimits.reason(body == null ? null : body.reason(), errors);
        if (!errors.isEmpty()) {
            throw new ApiProblemException(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid erasure request",
                    errors.get(0), errors);
        }
        checkouts.find(caller, checkoutId).orElseThrow(() -> CheckoutController.notFound(checkoutId));
        boolean erased = Boolean.TRUE.equals(transactions.execute(tx -> {
            boolean done = vault.erase(checkoutId, caller.actor(), reason);
            if (done) audit.record(caller, "checkout.erase-personal-data", "checkout:" + checkoutId, reason, null);
            return done;
        }));
        return Map.of("checkoutId", checkoutId, "erased", true, "alreadyErased", !erased);
    }
}
