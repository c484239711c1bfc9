package io.durablecheckout.activities.inventory;

import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.TenantId;

/** One SKU's stock. Conserved: {@code available + reserved + sold == initialQuantity} (also a table constraint). */
public record StockLevel(TenantId tenantId, Sku sku, long initialQuantity, long available, long reserved, long sold) {

    public boolean conserved() {
        return available + reserved + sold == initialQuantity;
    }
}
