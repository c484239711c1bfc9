-- Payment intents waiting for a provider call (decision 132): the payments processor inserts a row per intent in its
-- batch's transaction and moves on; drainers take rows round robin over tenants (FOR UPDATE SKIP LOCKED, the lock held
-- through the call) and delete each in the call's own transaction. A checkout's later row waits for its earlier ones.
-- The intent itself is read back from the event store by (checkout_id, sequence_number).
CREATE TABLE payment_intake (
    id              bigserial   PRIMARY KEY,
    tenant_id       text        NOT NULL,
    checkout_id     text        NOT NULL,
    sequence_number bigint      NOT NULL,
    attempts        integer     NOT NULL DEFAULT 0,
    not_before      timestamptz NOT NULL DEFAULT now(),
    last_error      text,
    UNIQUE (checkout_id, sequence_number)
);
CREATE INDEX payment_intake_by_tenant ON payment_intake (tenant_id, id);
