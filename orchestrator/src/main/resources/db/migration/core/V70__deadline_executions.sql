-- Every deadline execution that committed, written in the deadline handler's own transaction when
-- checkout.deadlines.execution-log=true (docs/scaling.md): "each deadline fires once across the cluster" is checked by
-- counting these rows per db-scheduler task instance. Deliberately no unique key: a second execution must show as a
-- second row, not be hidden by a constraint.
CREATE TABLE deadline_executions (
    id            BIGSERIAL PRIMARY KEY,
    task_instance TEXT        NOT NULL,
    deadline_name TEXT        NOT NULL,
    node_id       TEXT        NOT NULL,
    executed_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX deadline_executions_instance_idx ON deadline_executions (task_instance);

-- Which node runs which event processor, refreshed every few seconds by each node's SegmentBalancer: a node that
-- holds more than its fair share of a processor's segments (segments / live members, rounded up) releases one, so a
-- node that joins gets work without waiting for another to die (docs/scaling.md).
CREATE TABLE cluster_members (
    node_id   TEXT        NOT NULL,
    processor TEXT        NOT NULL,
    last_seen TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (node_id, processor)
);
