-- A confirmed checkout's reservation becomes a sale: its units move from reserved to sold (status SOLD).
-- A later cancellation (refund) releases sold units back to available.
ALTER TABLE inventory_operations DROP CONSTRAINT ck_inventory_operations_status;
ALTER TABLE inventory_operations ADD CONSTRAINT ck_inventory_operations_status
    CHECK (status IN ('STARTED', 'RESERVED', 'REJECTED', 'RELEASED', 'CANCELLED', 'SOLD'));
