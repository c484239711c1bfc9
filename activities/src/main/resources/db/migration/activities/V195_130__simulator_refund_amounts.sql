-- Partial refunds (decision 130): the simulator refunds an amount, never more than the capture took (the authorized
-- amount when nothing was captured) less what it refunded already. refunded_minor is the sum refunded; each refund's
-- own amount is kept with its Idempotency-Key (simulator_idempotency.amount_minor, action REFUND).
ALTER TABLE simulator_authorizations ADD COLUMN refunded_minor BIGINT NOT NULL DEFAULT 0;
ALTER TABLE simulator_idempotency ADD COLUMN amount_minor BIGINT;
