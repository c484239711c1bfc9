-- The replay guard keyed on the delivery's identity, the notification's id and the timestamp its signature covers,
-- instead of the signature's text: the receiver accepts the hex in either case (and with surrounding blanks), so the
-- same delivery with its signature upper-cased passed the old guard as new and was counted as a redelivery. Neither
-- part can be changed without the secret. A provider's redelivery is signed anew with its own timestamp, so it is
-- still accepted and counted (provider_notifications.deliveries).
-- The signatures recorded before this migration are dropped: within their tolerance window a re-sent one is still
-- only counted as a redelivery of a notification already applied (nothing reaches the checkout twice).
DROP TABLE provider_webhook_signatures;
CREATE TABLE provider_webhook_deliveries (
    notification_id TEXT        NOT NULL,
    signed_at       BIGINT      NOT NULL, -- Checkout-Webhook-Timestamp, Unix seconds
    received_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (notification_id, signed_at)
);
CREATE INDEX provider_webhook_deliveries_received_idx ON provider_webhook_deliveries (received_at);
