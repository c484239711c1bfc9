-- The application_name each node's database sessions carry ("checkout <incarnation> <node>"), refreshed with
-- last_seen: a node that stopped refreshing (frozen by SIGSTOP, a stalled VM, a long pause) may still hold row locks
-- in sessions PostgreSQL cannot time out, and the live nodes end exactly those sessions (SegmentBalancer).
ALTER TABLE cluster_members ADD COLUMN session_name TEXT;
