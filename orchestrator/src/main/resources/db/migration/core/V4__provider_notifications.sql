-- Every provider notification (webhook) received, once per notification id, with how many times it was delivered
-- and what it did. Evidence for operators; the checkout's history has the decisions.
CREATE TABLE provider_notifications (
    notification_id            TEXT PRIMARY KEY,
    authorization_operation_id TEXT        NOT NULL,
    checkout_id                TEXT        NOT NULL,
    status                     TEXT        NOT NULL,
    provider_reference         TEXT,
    deliveries                 INTEGER     NOT NULL DEFAULT 1,
    first_received_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_received_at           TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX provider_notifications_checkout_idx ON provider_notifications (checkout_id);
