package io.durablecheckout.api.query;

import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.TenantId;

import java.util.List;

/** Answered by inventory with the subset of {@code skus} it does not stock for the tenant (empty: all known). */
public record FindUnknownSkusQuery(TenantId tenantId, List<Sku> skus) {
}
