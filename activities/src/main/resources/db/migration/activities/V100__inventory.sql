-- Inventory activity service: stock levels, one row per reservation/release operation, and the lines a
-- reservation holds. Owned by io.durablecheckout.activities.inventory.

-- Invariant 7 is a table constraint, so no code path (or operator) can break conservation silently.
CREATE TABLE stock (
    tenant_id        VARCHAR(64)  NOT NULL,
    sku              VARCHAR(128) NOT NULL,
    initial_quantity BIGINT       NOT NULL,
    available        BIGINT       NOT NULL,
    reserved         BIGINT       NOT NULL DEFAULT 0,
    sold             BIGINT       NOT NULL DEFAULT 0,
    created_at       TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at       TIMESTAMPTZ  NOT NULL DEFAULT now(),
    CONSTRAINT pk_stock PRIMARY KEY (tenant_id, sku),
    CONSTRAINT ck_stock_non_negative CHECK (available >= 0 AND reserved >= 0 AND sold >= 0),
    CONSTRAINT ck_stock_conserved CHECK (available + reserved + sold = initial_quantity)
);

-- One row per operation id: the idempotency key and the fencing authority for that operation.
-- status: STARTED (never committed: the effect and the terminal status share a transaction),
--         RESERVED | REJECTED | RELEASED (reservation), CANCELLED (a release arrived before the reservation
--         ever ran; fenced with the maximum token so no later owner reserves), RELEASED (release op).
CREATE TABLE inventory_operations (
    operation_id             VARCHAR(255) NOT NULL,
    kind                     VARCHAR(16)  NOT NULL,
    checkout_id              VARCHAR(255) NOT NULL,
    tenant_id                VARCHAR(64)  NOT NULL,
    fencing_token            BIGINT       NOT NULL,
    status                   VARCHAR(16)  NOT NULL,
    reason                   VARCHAR(32),
    detail                   VARCHAR(1000),
    reservation_operation_id VARCHAR(255),
    created_at               TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at               TIMESTAMPTZ  NOT NULL DEFAULT now(),
    CONSTRAINT pk_inventory_operations PRIMARY KEY (operation_id),
    CONSTRAINT ck_inventory_operations_kind CHECK (kind IN ('RESERVE', 'RELEASE')),
    CONSTRAINT ck_inventory_operations_status
        CHECK (status IN ('STARTED', 'RESERVED', 'REJECTED', 'RELEASED', 'CANCELLED'))
);

CREATE INDEX ix_inventory_operations_checkout ON inventory_operations (checkout_id);

-- What a RESERVED operation holds; a release gives back exactly these quantities.
CREATE TABLE inventory_reservation_lines (
    operation_id VARCHAR(255) NOT NULL REFERENCES inventory_operations (operation_id),
    tenant_id    VARCHAR(64)  NOT NULL,
    sku          VARCHAR(128) NOT NULL,
    quantity     BIGINT       NOT NULL CHECK (quantity > 0),
    CONSTRAINT pk_inventory_reservation_lines PRIMARY KEY (operation_id, sku)
);
