-- The Stripe adapter's own record: the PaymentIntent created (idempotently) for an authorization operation, written
-- before the intent is confirmed, so a lookup, void or refund finds it by id after Stripe's 24-hour idempotency window.
CREATE TABLE stripe_payment_intents (
    operation_id VARCHAR(255) NOT NULL,
    intent_id    VARCHAR(255) NOT NULL,
    created_at   TIMESTAMPTZ  NOT NULL DEFAULT now(),
    CONSTRAINT pk_stripe_payment_intents PRIMARY KEY (operation_id)
);
