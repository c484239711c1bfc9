-- Tenants and their API keys. Only a SHA-256 of each key is stored.
CREATE TABLE tenants (
    tenant_id      TEXT PRIMARY KEY,
    name           TEXT        NOT NULL,
    api_key_sha256 TEXT        NOT NULL UNIQUE,
    role           TEXT        NOT NULL DEFAULT 'tenant' CHECK (role IN ('tenant', 'operator')),
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Read model: one row per checkout, rebuilt from the Checkout event stream by the checkout-summary processor.
-- version = sequence number of the last event applied, so a redelivered event is recognised and skipped.
CREATE TABLE checkout_summary (
    checkout_id    TEXT PRIMARY KEY,
    tenant_id      TEXT        NOT NULL,
    state          TEXT        NOT NULL,
    version        BIGINT      NOT NULL,
    terminal       BOOLEAN     NOT NULL,
    waiting_reason TEXT,
    next_deadline  TIMESTAMPTZ,
    view           JSONB       NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL,
    updated_at     TIMESTAMPTZ NOT NULL
);
CREATE INDEX checkout_summary_tenant_state_idx ON checkout_summary (tenant_id, state, updated_at DESC);
CREATE INDEX checkout_summary_waiting_idx ON checkout_summary (next_deadline) WHERE NOT terminal;
