-- A payment that needs the customer (3-D Secure, issue 49). payment_operations, kind AUTHORIZE, gains the status
-- ACTION_REQUIRED: not final (the provider's notification or a lookup records AUTHORIZED or DECLINED over it, a void
-- DECLINED), but a redelivered intent is answered from the row, with next_action (JSON text, as the provider gave it:
-- what the client shows), instead of asking the provider again.
ALTER TABLE payment_operations DROP CONSTRAINT ck_payment_operations_status;
ALTER TABLE payment_operations ADD CONSTRAINT ck_payment_operations_status
    CHECK (status IN ('STARTED', 'AUTHORIZED', 'DECLINED', 'UNKNOWN', 'FAILED', 'ANSWERED', 'VOIDED', 'REFUNDED',
                      'CAPTURED', 'ACTION_REQUIRED'));
ALTER TABLE payment_operations ADD COLUMN next_action TEXT;

-- The simulator's 3-D Secure tokens: REQUIRES_ACTION until the (simulated) customer authenticates (tok_3ds: AUTHORIZED
-- after checkout.simulator.three-ds-delay) or never (tok_3ds_abandoned); a void before then declines it.
ALTER TABLE simulator_authorizations DROP CONSTRAINT ck_simulator_authorizations_status;
ALTER TABLE simulator_authorizations ADD CONSTRAINT ck_simulator_authorizations_status
    CHECK (status IN ('NEW', 'AUTHORIZED', 'DECLINED', 'PENDING', 'REQUIRES_ACTION'));
