-- Live counts by state for the dashboard without counting a million rows on every poll (a GROUP BY over
-- checkout_summary took 0.65 s at 1,000,000 checkouts). Kept by statement-level triggers with transition tables, so
-- every writer of checkout_summary (the projection's batch upsert, the offline rebuild, a reset's TRUNCATE) keeps it
-- exact in its own transaction, at one extra statement per statement. Rows are touched in key order, so two writers
-- cannot deadlock on them.
CREATE TABLE checkout_state_counts (
    tenant_id TEXT   NOT NULL,
    state     TEXT   NOT NULL,
    n         BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, state)
);

CREATE FUNCTION checkout_state_counts_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO checkout_state_counts (tenant_id, state, n)
    SELECT tenant_id, state, count(*) FROM new_rows GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (tenant_id, state) DO UPDATE SET n = checkout_state_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION checkout_state_counts_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO checkout_state_counts (tenant_id, state, n)
    SELECT tenant_id, state, sum(d) FROM (SELECT tenant_id, state, -1 AS d FROM old_rows
                                          UNION ALL SELECT tenant_id, state, 1 FROM new_rows) x
    GROUP BY 1, 2 HAVING sum(d) <> 0 ORDER BY 1, 2
    ON CONFLICT (tenant_id, state) DO UPDATE SET n = checkout_state_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION checkout_state_counts_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO checkout_state_counts (tenant_id, state, n)
    SELECT tenant_id, state, -count(*) FROM old_rows GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (tenant_id, state) DO UPDATE SET n = checkout_state_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION checkout_state_counts_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM checkout_state_counts;
    RETURN NULL;
END $$;

CREATE TRIGGER checkout_state_counts_insert AFTER INSERT ON checkout_summary
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION checkout_state_counts_on_insert();
CREATE TRIGGER checkout_state_counts_update AFTER UPDATE ON checkout_summary
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
    EXECUTE FUNCTION checkout_state_counts_on_update();
CREATE TRIGGER checkout_state_counts_delete AFTER DELETE ON checkout_summary
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION checkout_state_counts_on_delete();
CREATE TRIGGER checkout_state_counts_truncate AFTER TRUNCATE ON checkout_summary
    FOR EACH STATEMENT EXECUTE FUNCTION checkout_state_counts_on_truncate();

INSERT INTO checkout_state_counts (tenant_id, state, n)
SELECT tenant_id, state, count(*) FROM checkout_summary GROUP BY 1, 2;
