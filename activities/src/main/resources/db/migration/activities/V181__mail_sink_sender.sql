-- Which node handed each message to the demo's mail sink, as a mail service logs its client: a resend after a pause
-- is told apart from two sends of one attempt by its sender, not only by its time (docs/reliability.md).
ALTER TABLE mail_sink_messages ADD COLUMN sent_by VARCHAR(255);
