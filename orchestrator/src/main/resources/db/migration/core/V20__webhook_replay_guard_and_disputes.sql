-- Signatures of accepted provider notifications, kept for the tolerance window (older ones are refused by their
-- timestamp anyway): the same signature twice is a replay and is refused.
CREATE TABLE provider_webhook_signatures (
    signature   TEXT        PRIMARY KEY,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX provider_webhook_signatures_received_idx ON provider_webhook_signatures (received_at);

-- A correctly signed notification that does not match its operation (another tenant, another amount or currency,
-- an operation that does not exist) is kept here as a dispute, with what did not match, and changes nothing else.
ALTER TABLE provider_notifications ADD COLUMN dispute TEXT;
