-- Inside a tenant, rows of checkouts already under way (captures, lookups, voids, refunds: rank 0) are taken before new
-- authorizations (rank 1), oldest first within a rank (decision 136): under a flood the work that finishes checkouts
-- and releases money is not queued behind new checkouts' authorizations.
ALTER TABLE payment_intake ADD COLUMN rank smallint NOT NULL DEFAULT 1;
DROP INDEX payment_intake_by_tenant;
CREATE INDEX payment_intake_by_tenant ON payment_intake (tenant_id, rank, id);
