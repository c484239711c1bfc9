-- Two indexes every checkout wrote and nothing reads (decision 87; pg_stat_user_indexes: 0 scans under the workload).
--
-- domainevententry (eventidentifier): 12 entries per checkout. No query looks an event up by its identifier, and the
-- uniqueness it guarded is kept by the (aggregateidentifier, sequencenumber) key: an aggregate's event is unique by its
-- place in its stream, and an event with no aggregate (an activity's result) is stored as its own stream at sequence
-- 0, its identifier as the aggregate identifier, so a second append of it still collides there.
ALTER TABLE domainevententry DROP CONSTRAINT IF EXISTS domainevententry_eventidentifier_key;

-- scheduled_tasks (priority, execution_time): one entry per lease deadline. db-scheduler reads it only with
-- prioritisation on (db-scheduler.priority-enabled), which this product leaves off; its poll orders by execution_time.
DROP INDEX IF EXISTS priority_execution_time_idx;
