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
