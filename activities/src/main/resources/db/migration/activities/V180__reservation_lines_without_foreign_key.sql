-- A reservation's lines are written by one statement that also marks its operation RESERVED (InventoryResource), in
-- the transaction that claimed that operation's row: the reference could not be dangling when written, and no
-- operation row is ever deleted. The foreign key's check cost one statement per line of every checkout
-- (docs/decisions.md §79).
ALTER TABLE inventory_reservation_lines DROP CONSTRAINT IF EXISTS inventory_reservation_lines_operation_id_fkey;
