package io.durablecheckout.orchestrator.web;

import io.durablecheckout.api.values.TenantId;

/**
 * Adds a tenant's stock for the admin API: the port the wiring gives the web layer over the inventory service's own
 * admin, where this process runs one.
 */
public interface StockAdmin {

    /** False where this process runs no inventory service (the split deployment's orchestrator). */
    boolean available();

    /** Adds {@code sku} with {@code quantity} available; false when the tenant already has that SKU. */
    boolean seed(TenantId tenantId, String sku, long quantity);
}
