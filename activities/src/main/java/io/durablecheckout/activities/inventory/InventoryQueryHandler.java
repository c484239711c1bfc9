package io.durablecheckout.activities.inventory;

import io.durablecheckout.api.query.FindUnknownSkusQuery;
import io.durablecheckout.api.query.UnknownSkus;
import org.axonframework.queryhandling.QueryHandler;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/** Lets the orchestrator refuse a checkout for SKUs the tenant does not stock, before any workflow starts. */
@Component
@ConditionalOnProperty(name = "checkout.activities.enabled", havingValue = "true", matchIfMissing = true)
public class InventoryQueryHandler {

    private final InventoryAdmin admin;

    public InventoryQueryHandler(InventoryAdmin admin) {
        this.admin = admin;
    }

    @QueryHandler
    public UnknownSkus handle(FindUnknownSkusQuery query) {
        return new UnknownSkus(admin.unknownSkus(query.tenantId(), query.skus()));
    }
}
