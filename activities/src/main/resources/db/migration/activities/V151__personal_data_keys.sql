-- One AES-256 key per checkout for its personal data (e-mail, payment token), which events carry only encrypted.
-- Erasure sets data_key to NULL: every encrypted copy is then unreadable; the row remembers when, by whom and why.
CREATE TABLE personal_data_keys (
    checkout_id VARCHAR(255) NOT NULL,
    data_key    BYTEA,
    created_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    erased_at   TIMESTAMPTZ,
    erased_by   TEXT,
    reason      TEXT,
    CONSTRAINT pk_personal_data_keys PRIMARY KEY (checkout_id),
    CONSTRAINT ck_personal_data_keys_erased CHECK ((data_key IS NULL) = (erased_at IS NOT NULL))
);
