package io.durablecheckout.orchestrator.web;

import io.durablecheckout.orchestrator.http.ApiProblemException;
import io.durablecheckout.orchestrator.readmodel.CheckoutSummaryRebuild;
import io.durablecheckout.orchestrator.tenancy.Caller;
import org.axonframework.eventhandling.tokenstore.UnableToClaimTokenException;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Rebuilds the checkout_summary read model from the event store (operators only); answers when it is done. */
@RestController
@RequestMapping("/api/v1/operator/read-models/checkout-summary")
@ConditionalOnProperty(name = "checkout.orchestrator.enabled", havingValue = "true", matchIfMissing = true)
public class ReadModelController {

    private final CheckoutSummaryRebuild rebuild;
    private final io.durablecheckout.orchestrator.tenancy.AuditLog audit;

    public ReadModelController(CheckoutSummaryRebuild rebuild, io.durablecheckout.orchestrator.tenancy.AuditLog audit) {
        this.rebuild = rebuild;
        this.audit = audit;
    }

    @PostMapping("/rebuild")
    public CheckoutSummaryRebuild.Result rebuild(@RequestAttribute(Caller.REQUEST_ATTRIBUTE) Caller caller) {
        if (!caller.has(Caller.Role.OPERATOR_REPAIR)) {
            throw new ApiProblemException(HttpStatus.FORBIDDEN, "forbidden", "Operators only",
                    "This action needs an operator API key");
        }
        try {
            CheckoutSummaryRebuild.Result result = rebuild.rebuild();
            audit.record(caller, "read-model.rebuild", "read-model:checkout-summary", "operator request", null);
            return result;
        } catch (UnableToClaimTokenException e) {
            // nothing was written: the rebuild is one transaction
            throw new ApiProblemException(HttpStatus.CONFLICT, "segment-held-elsewhere",
                    "Another node holds the read model's processor",
                    "Run the rebuild on the node that holds the checkout-summary segment, or stop the others first");
        }
    }
}
