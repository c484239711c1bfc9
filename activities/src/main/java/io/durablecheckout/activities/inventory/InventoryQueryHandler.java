package io.durablecheckout.activities.inventory;

import io.durablecheckout.api.query.FindUnknownSkusQuery;
import io.durablecheckout.api.query.UnknownSkus;
import org.axonframework.queryhandling.QueryHandler;
import org.springframework.stereotype.Component;

/**
 * Lets the orchestrator refuse a checkout for SKUs the tenant does not stock, before any workflow starts. Active in
 * every process, also one with {@code checkout.activities.enabled=false}: it only reads the catalogue, and without it
 * an API-only node on the plain JDBC setup (no Axon Server to route the query) could not accept a checkout.
 */
@Component
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
