-- The dashboard's list and search (docs/operations.md). Keyset pagination walks (created_at, checkout_id) newest
-- first; each filter the list offers has an index whose leading columns match it, so a page is an index range scan
-- whatever the size of the table (docs/benchmarks.md, "Dashboard list and search").

-- When the checkout entered its current state: "time in state" and the stuck filter (per-state thresholds).
ALTER TABLE checkout_summary ADD COLUMN state_entered_at TIMESTAMPTZ;
UPDATE checkout_summary SET state_entered_at = updated_at WHERE state_entered_at IS NULL;

CREATE INDEX checkout_summary_created_idx ON checkout_summary (created_at DESC, checkout_id DESC);
CREATE INDEX checkout_summary_tenant_created_idx ON checkout_summary (tenant_id, created_at DESC, checkout_id DESC);
CREATE INDEX checkout_summary_state_created_idx ON checkout_summary (state, created_at DESC, checkout_id DESC);
-- Waiting checkouts by how long they have been in their state (stuck, money at risk, oldest unknown payments).
CREATE INDEX checkout_summary_open_state_since_idx ON checkout_summary (state, state_entered_at) WHERE NOT terminal;
-- Search by the client's Idempotency-Key and by the provider's reference (the checkout id is the primary key).
CREATE INDEX checkout_summary_idempotency_key_idx ON checkout_summary ((view ->> 'idempotencyKey'));
CREATE INDEX checkout_summary_provider_reference_idx ON checkout_summary ((view ->> 'providerReference'));
