-- Every start looks for personal data an earlier version left in the clear (LegacyDataKeys, decision 62): data keys
-- still in personal_data_keys, recipients not sealed, and the key files of erased checkouts a crash may have left.
-- Normally there is none or few, but without these indexes each look read every checkout's row of three tables at
-- every start, a cost that grew with the history. Each partial index holds only such rows: the look is an index probe,
-- and a new checkout (key outside PostgreSQL, recipient sealed, not erased) adds no entry.
-- The predicates match LegacyDataKeys' queries word for word (enc:v1: is PersonalData.PREFIX, [erased] its ERASED).
CREATE INDEX IF NOT EXISTS ix_personal_data_keys_key_in_table ON personal_data_keys (checkout_id)
    WHERE data_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS ix_personal_data_keys_erased ON personal_data_keys (checkout_id)
    WHERE erased_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS ix_receipt_operations_plain_recipient ON receipt_operations (operation_id)
    WHERE recipient NOT LIKE 'enc:v1:%' AND recipient <> '[erased]';
CREATE INDEX IF NOT EXISTS ix_outbound_messages_plain_recipient ON outbound_messages (id)
    WHERE recipient NOT LIKE 'enc:v1:%' AND recipient <> '[erased]';
