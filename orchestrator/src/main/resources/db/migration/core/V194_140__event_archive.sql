-- Retention (issue 51, decisions 127-129; docs/operations.md, "Retention"): finished checkouts' events move out of the
-- hot event table into an archive of the same shape, which aggregate loads, replay, bundles and the read model's
-- rebuild read together with it. Empty, and nothing moves, until checkout.retention.enabled=true.
CREATE TABLE domainevententry_archive (
    globalindex         BIGINT       NOT NULL,
    aggregateidentifier VARCHAR(255) NOT NULL,
    sequencenumber      BIGINT       NOT NULL,
    type                VARCHAR(255),
    eventidentifier     VARCHAR(255) NOT NULL,
    metadata            BYTEA,
    payload             BYTEA        NOT NULL,
    payloadrevision     VARCHAR(255),
    payloadtype         VARCHAR(255) NOT NULL,
    timestamp           VARCHAR(255) NOT NULL,
    PRIMARY KEY (globalindex),
    UNIQUE (aggregateidentifier, sequencenumber)
);

-- Every stored event of a Checkout, hot or archived: what replay, bundles and the rebuild read (a move is one
-- transaction, so a statement sees each event in exactly one of the two).
CREATE VIEW domain_events_all AS
    SELECT globalindex, aggregateidentifier, sequencenumber, type, eventidentifier, metadata, payload, payloadrevision,
           payloadtype, timestamp FROM domainevententry
    UNION ALL
    SELECT globalindex, aggregateidentifier, sequencenumber, type, eventidentifier, metadata, payload, payloadrevision,
           payloadtype, timestamp FROM domainevententry_archive;

-- The checkouts whose events were moved, written in the move's transaction.
CREATE TABLE archived_checkouts (
    checkout_id   VARCHAR(255) PRIMARY KEY,
    tenant_id     TEXT         NOT NULL,
    last_sequence BIGINT       NOT NULL,
    events        INTEGER      NOT NULL,
    archived_at   TIMESTAMPTZ  NOT NULL DEFAULT now()
);

-- Idempotency (decision 5) rests on the hot table's unique (aggregate, sequence) key, which no longer sees an archived
-- checkout's first event: a creating event for an archived checkout is refused with the same unique violation
-- (SQLSTATE 23505, read as Axon's ConcurrencyException), so a submission answers as for a live checkout's race.
-- Only Checkout streams' first events fire it (one per checkout).
CREATE FUNCTION refuse_archived_checkout_creation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM archived_checkouts WHERE checkout_id = NEW.aggregateidentifier) THEN
        RAISE EXCEPTION 'checkout % is archived: its first event exists', NEW.aggregateidentifier
            USING ERRCODE = 'unique_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER domainevententry_archived_checkout BEFORE INSERT ON domainevententry
    FOR EACH ROW WHEN (NEW.sequencenumber = 0 AND NEW.type = 'Checkout')
    EXECUTE FUNCTION refuse_archived_checkout_creation();

-- A tenant's own retention in days after a checkout finished (null: checkout.retention.default-retention); never
-- shorter than checkout.retention.chargeback-window.
ALTER TABLE tenants ADD COLUMN event_retention_days INTEGER CHECK (event_retention_days >= 0);
