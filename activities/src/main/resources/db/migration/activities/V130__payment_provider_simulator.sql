-- The payment provider simulator's own durable ledger (a test double of an external provider; it shares the
-- database only for convenience and is never read by the payments service, which talks to it over HTTP).
-- status: NEW (request seen but nothing decided: only the refusal counter of tok_provider_down; looks up as 404),
--         AUTHORIZED | DECLINED | PENDING.
CREATE TABLE simulator_authorizations (
    operation_id  VARCHAR(255) NOT NULL,
    payment_token VARCHAR(255) NOT NULL,
    amount_minor  BIGINT       NOT NULL,
    currency      CHAR(3)      NOT NULL,
    status        VARCHAR(16)  NOT NULL,
    reference     VARCHAR(64),
    reason        VARCHAR(255),
    voided        BOOLEAN      NOT NULL DEFAULT FALSE,
    refunded      BOOLEAN      NOT NULL DEFAULT FALSE,
    refusals      INTEGER      NOT NULL DEFAULT 0,
    created_at    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    CONSTRAINT pk_simulator_authorizations PRIMARY KEY (operation_id),
    CONSTRAINT ck_simulator_authorizations_status CHECK (status IN ('NEW', 'AUTHORIZED', 'DECLINED', 'PENDING'))
);

-- Void / refund requests by their Idempotency-Key: a repeated key returns the recorded answer.
CREATE TABLE simulator_idempotency (
    idempotency_key            VARCHAR(255) NOT NULL,
    action                     VARCHAR(16)  NOT NULL,
    authorization_operation_id VARCHAR(255) NOT NULL,
    http_status                INTEGER      NOT NULL,
    status                     VARCHAR(16)  NOT NULL,
    reference                  VARCHAR(64),
    reason                     VARCHAR(255),
    created_at                 TIMESTAMPTZ  NOT NULL DEFAULT now(),
    CONSTRAINT pk_simulator_idempotency PRIMARY KEY (idempotency_key),
    CONSTRAINT ck_simulator_idempotency_action CHECK (action IN ('VOID', 'REFUND'))
);
