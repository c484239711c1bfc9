-- Data keys live outside PostgreSQL, in the DataKeyStore (docs/decisions.md, decision 62): a key PostgreSQL stored
-- stays in old row versions, the WAL and backups after it is "deleted". data_key is kept only for keys written before,
-- which the next start moves to the store and clears (LegacyDataKeys). A row without a key is therefore no longer
-- erased by that alone: erased_at says so.
ALTER TABLE personal_data_keys DROP CONSTRAINT ck_personal_data_keys_erased;
ALTER TABLE personal_data_keys ADD CONSTRAINT ck_personal_data_keys_erased CHECK (erased_at IS NULL OR data_key IS NULL);

-- The receipts service's records keep the address sealed under the checkout's key (enc:v1:..., longer than the
-- address; the opened address is still bounded to 320 characters where it arrives).
ALTER TABLE receipt_operations ALTER COLUMN recipient TYPE TEXT;
ALTER TABLE outbound_messages ALTER COLUMN recipient TYPE TEXT;
