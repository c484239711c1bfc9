-- API keys move out of the tenants table: a tenant (an account: a merchant, the operators, the administrators) has
-- any number of keys, each with its roles, so a key can be rotated (new key, old one expires after an overlap) and
-- revoked on its own. Only a SHA-256 of each key is stored. roles: comma-separated
-- tenant | operator-read | operator-repair | admin.
CREATE TABLE api_keys (
    key_id     TEXT        PRIMARY KEY,
    tenant_id  TEXT        NOT NULL REFERENCES tenants (tenant_id),
    key_sha256 TEXT        NOT NULL UNIQUE,
    roles      TEXT        NOT NULL,
    label      TEXT,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    created_by TEXT        NOT NULL,
    expires_at TIMESTAMPTZ,
    revoked_at TIMESTAMPTZ,
    revoked_by TEXT
);
CREATE INDEX api_keys_tenant_idx ON api_keys (tenant_id);
CREATE INDEX api_keys_label_idx ON api_keys (label) WHERE label IS NOT NULL;

INSERT INTO api_keys (key_id, tenant_id, key_sha256, roles, label, created_by)
SELECT 'key_' || substr(api_key_sha256, 1, 16), tenant_id, api_key_sha256,
       CASE role WHEN 'operator' THEN 'operator-read,operator-repair' ELSE 'tenant' END,
       CASE tenant_id WHEN 'demo' THEN 'demo:tenant' WHEN 'operator' THEN 'demo:operator' END,
       'migration'
FROM tenants;

ALTER TABLE tenants DROP COLUMN api_key_sha256;
ALTER TABLE tenants DROP COLUMN role;
ALTER TABLE tenants ADD COLUMN disabled_at TIMESTAMPTZ;

-- Every administrative and repair action: who (account and key id), when, what, on what, and why.
CREATE TABLE audit_log (
    id         BIGSERIAL   PRIMARY KEY,
    at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    actor      TEXT        NOT NULL,
    action     TEXT        NOT NULL,
    target     TEXT        NOT NULL,
    reason     TEXT        NOT NULL,
    details    TEXT
);
CREATE INDEX audit_log_target_idx ON audit_log (target, at);
