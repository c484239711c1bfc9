-- Effects counted where they happen (docs/reliability.md). The simulator and the mail sink are stand-ins for
-- external systems: like a provider's request log, they record every request they receive, in their own committed
-- transaction, whatever happens to the caller's. The product never reads these tables; the fault matrix does.
CREATE TABLE simulator_calls (
    id              BIGSERIAL    NOT NULL,
    action          VARCHAR(16)  NOT NULL,
    operation_id    VARCHAR(255) NOT NULL,   -- the authorization the call is about
    idempotency_key VARCHAR(255),            -- the Idempotency-Key header it carried (null: none)
    called_at       TIMESTAMPTZ  NOT NULL DEFAULT clock_timestamp(),
    CONSTRAINT pk_simulator_calls PRIMARY KEY (id),
    CONSTRAINT ck_simulator_calls_action CHECK (action IN ('AUTHORIZE', 'LOOKUP', 'VOID', 'REFUND'))
);
CREATE INDEX ix_simulator_calls_key ON simulator_calls (idempotency_key);

-- Every message handed to the demo mail adapter (one row per send request, duplicates included).
CREATE TABLE mail_sink_messages (
    id              BIGSERIAL    NOT NULL,
    operation_id    VARCHAR(255) NOT NULL,   -- the message's reference (the operation that sends it)
    idempotency_key VARCHAR(255),
    recipient       VARCHAR(320) NOT NULL,
    subject         VARCHAR(500) NOT NULL,
    body            TEXT         NOT NULL,
    sent_at         TIMESTAMPTZ  NOT NULL DEFAULT clock_timestamp(),
    CONSTRAINT pk_mail_sink_messages PRIMARY KEY (id)
);
CREATE INDEX ix_mail_sink_messages_key ON mail_sink_messages (idempotency_key);

-- When an operation's outcome was first recorded (wall clock of the statement, not of the transaction's start):
-- no effect may happen for it afterwards. A lookup round's answer is kept to be replayed to the same round.
ALTER TABLE payment_operations
    ADD COLUMN outcome_recorded_at TIMESTAMPTZ,
    ADD COLUMN lookup_outcome      VARCHAR(16),
    ADD COLUMN answered_token      BIGINT;
ALTER TABLE receipt_operations
    ADD COLUMN outcome_recorded_at TIMESTAMPTZ;
UPDATE payment_operations SET outcome_recorded_at = updated_at
    WHERE status IN ('AUTHORIZED', 'DECLINED', 'VOIDED', 'REFUNDED');
UPDATE receipt_operations SET outcome_recorded_at = updated_at WHERE status = 'SENT';
