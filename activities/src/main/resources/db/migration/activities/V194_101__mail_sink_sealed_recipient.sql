-- The demo mail sink keeps the recipient sealed under the checkout's key (enc:v1:..., longer than an address), so an
-- erasure leaves nothing readable in its files or the WAL (docs/security.md).
ALTER TABLE mail_sink_messages ALTER COLUMN recipient TYPE TEXT;
