-- A recipient the mail server refused for good (SMTP 5xx): recorded, so a redelivered or retried intent is answered
-- from the record and nothing is sent again for that operation.
ALTER TABLE receipt_operations DROP CONSTRAINT ck_receipt_operations_status;
ALTER TABLE receipt_operations ADD CONSTRAINT ck_receipt_operations_status
    CHECK (status IN ('STARTED', 'SENT', 'UNDELIVERABLE'));
ALTER TABLE receipt_operations ADD COLUMN failure_detail VARCHAR(1000);
