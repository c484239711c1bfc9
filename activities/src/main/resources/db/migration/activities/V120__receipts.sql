-- Receipts activity service. "Sending" a message is inserting it into the outbox once per operation id; a mail
-- relay drains outbound_messages. A sent receipt cannot be unsent: cancellation is a new message.
CREATE TABLE receipt_operations (
    operation_id  VARCHAR(255) NOT NULL,
    kind          VARCHAR(32)  NOT NULL,
    checkout_id   VARCHAR(255) NOT NULL,
    tenant_id     VARCHAR(64)  NOT NULL,
    fencing_token BIGINT       NOT NULL,
    status        VARCHAR(16)  NOT NULL,
    recipient     VARCHAR(320) NOT NULL,
    created_at    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    CONSTRAINT pk_receipt_operations PRIMARY KEY (operation_id),
    CONSTRAINT ck_receipt_operations_kind CHECK (kind IN ('RECEIPT', 'CANCELLATION_NOTICE')),
    CONSTRAINT ck_receipt_operations_status CHECK (status IN ('STARTED', 'SENT'))
);

CREATE INDEX ix_receipt_operations_checkout ON receipt_operations (checkout_id);

CREATE TABLE outbound_messages (
    id           BIGSERIAL    NOT NULL,
    operation_id VARCHAR(255) NOT NULL,
    recipient    VARCHAR(320) NOT NULL,
    subject      VARCHAR(500) NOT NULL,
    body         TEXT         NOT NULL,
    created_at   TIMESTAMPTZ  NOT NULL DEFAULT now(),
    CONSTRAINT pk_outbound_messages PRIMARY KEY (id),
    CONSTRAINT uq_outbound_messages_operation UNIQUE (operation_id)
);
