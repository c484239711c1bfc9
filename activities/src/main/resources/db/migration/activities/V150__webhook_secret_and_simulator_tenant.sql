-- Secrets the embedded demo generates at its first start (never used when the secret is configured), so every
-- process on this database agrees on them and a restart keeps them.
CREATE TABLE generated_secrets (
    name       VARCHAR(64) NOT NULL,
    value      TEXT        NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT pk_generated_secrets PRIMARY KEY (name)
);

-- The merchant (tenant) an authorization was made for: the simulator's notifications name it, and the receiver
-- checks it against the checkout the operation belongs to.
ALTER TABLE simulator_authorizations ADD COLUMN tenant_id VARCHAR(255);
