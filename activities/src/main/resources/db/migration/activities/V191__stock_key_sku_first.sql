-- Stock is always looked up by tenant and SKU. With (tenant_id, sku) as the key, a tenant the statistics do not yet
-- know (a new tenant's catalogue, or any catalogue in the minutes before autoanalyze) is estimated at one row, and the
-- planner then scans the key by tenant alone and filters the SKUs: every reservation, sale and SKU check read the
-- tenant's whole catalogue (226 buffers a statement for the 1,000-SKU demo, 1,023 for 5,000 SKUs). SKU first leaves
-- no such plan: the key can only be entered by SKU (docs/decisions.md §82). Rebuilds the index under a brief lock.
ALTER TABLE stock DROP CONSTRAINT pk_stock, ADD CONSTRAINT pk_stock PRIMARY KEY (sku, tenant_id);
