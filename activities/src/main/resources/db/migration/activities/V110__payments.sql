-- Payments activity service: one row per operation id (authorization, lookup, void, refund).
-- status by kind:
--   AUTHORIZE: STARTED, AUTHORIZED | DECLINED (terminal), UNKNOWN (timeout / pending: ask again under the same
--              operation id), FAILED (provider unavailable, nothing happened: retryable)
--   LOOKUP:    STARTED, ANSWERED (never replayed: every lookup round asks the provider again)
--   VOID:      STARTED, VOIDED (terminal), FAILED
--   REFUND:    STARTED, REFUNDED (terminal), FAILED
CREATE TABLE payment_operations (
    operation_id               VARCHAR(255) NOT NULL,
    kind                       VARCHAR(16)  NOT NULL,
    checkout_id                VARCHAR(255) NOT NULL,
    tenant_id                  VARCHAR(64)  NOT NULL,
    fencing_token              BIGINT       NOT NULL,
    status                     VARCHAR(16)  NOT NULL,
    authorization_operation_id VARCHAR(255),
    provider_reference         VARCHAR(255),
    amount_minor               BIGINT,
    currency                   CHAR(3),
    detail                     VARCHAR(1000),
    attempts                   INTEGER      NOT NULL DEFAULT 0,
    created_at                 TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at                 TIMESTAMPTZ  NOT NULL DEFAULT now(),
    CONSTRAINT pk_payment_operations PRIMARY KEY (operation_id),
    CONSTRAINT ck_payment_operations_kind CHECK (kind IN ('AUTHORIZE', 'LOOKUP', 'VOID', 'REFUND')),
    CONSTRAINT ck_payment_operations_status CHECK (status IN ('STARTED', 'AUTHORIZED', 'DECLINED', 'UNKNOWN',
        'FAILED', 'ANSWERED', 'VOIDED', 'REFUNDED'))
);

CREATE INDEX ix_payment_operations_checkout ON payment_operations (checkout_id);
