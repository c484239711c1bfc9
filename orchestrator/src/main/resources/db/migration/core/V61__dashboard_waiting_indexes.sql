-- The dashboard's filters on waiting checkouts (stuck, retrying, payment unknown, waiting) walk only the non-terminal
-- rows, newest first, instead of the whole table: at a million checkouts a filter that matched nothing read every
-- row (docs/benchmarks.md, "Dashboard list and search").
CREATE INDEX checkout_summary_open_created_idx ON checkout_summary (created_at DESC, checkout_id DESC) WHERE NOT terminal;

-- Retrying: a step with a retry scheduled, an expired lease, or an attempt after the first in flight. The predicate is
-- the one DashboardQueries.RETRYING_SQL uses, word for word, so the planner can use this index.
CREATE INDEX checkout_summary_retrying_idx ON checkout_summary (created_at DESC, checkout_id DESC)
    WHERE NOT terminal AND jsonb_path_exists(view, '$.activities.* ? (@.status == "retry_scheduled" || @.status == "lease_expired" || (@.status == "in_flight" && @.attempt > 1))');
