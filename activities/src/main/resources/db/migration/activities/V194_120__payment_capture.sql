-- Capture as a workflow step (issue 49). payment_operations gains the kind CAPTURE:
--   CAPTURE: STARTED, CAPTURED | DECLINED (terminal), UNKNOWN (timeout: ask again under the same operation id),
--            FAILED (provider unavailable, nothing happened: retryable); captured_minor is what the provider took.
ALTER TABLE payment_operations DROP CONSTRAINT ck_payment_operations_kind;
ALTER TABLE payment_operations ADD CONSTRAINT ck_payment_operations_kind
    CHECK (kind IN ('AUTHORIZE', 'LOOKUP', 'VOID', 'REFUND', 'CAPTURE'));
ALTER TABLE payment_operations DROP CONSTRAINT ck_payment_operations_status;
ALTER TABLE payment_operations ADD CONSTRAINT ck_payment_operations_status
    CHECK (status IN ('STARTED', 'AUTHORIZED', 'DECLINED', 'UNKNOWN', 'FAILED', 'ANSWERED', 'VOIDED', 'REFUNDED',
                      'CAPTURED'));
ALTER TABLE payment_operations ADD COLUMN captured_minor BIGINT;

-- The simulator captures (a test double of a provider, counted where the effect happens): at most one capture per
-- authorization, under its Idempotency-Key (simulator_idempotency, action CAPTURE). captures counts the captures
-- made (never more than 1), capture_requests every capture request it received for the authorization (repeats
-- answered from the record included); capture_key and captured_minor are the capture made.
ALTER TABLE simulator_authorizations
    ADD COLUMN captures         INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN capture_requests INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN captured_minor   BIGINT,
    ADD COLUMN capture_key      VARCHAR(255);
ALTER TABLE simulator_idempotency DROP CONSTRAINT ck_simulator_idempotency_action;
ALTER TABLE simulator_idempotency ADD CONSTRAINT ck_simulator_idempotency_action
    CHECK (action IN ('VOID', 'REFUND', 'CAPTURE'));
ALTER TABLE simulator_calls DROP CONSTRAINT ck_simulator_calls_action;
ALTER TABLE simulator_calls ADD CONSTRAINT ck_simulator_calls_action
    CHECK (action IN ('AUTHORIZE', 'LOOKUP', 'VOID', 'REFUND', 'CAPTURE'));
