/**
 * Retention (docs/operations.md, "Retention"; decisions.md §127–129): moves finished checkouts' events from the hot
 * event table to its archive in batches, each batch one transaction, on a db-scheduler recurring task when
 * {@code checkout.retention.enabled}. Depends on {@code axon} (the event store's table names) and JDBC only.
 */
package io.durablecheckout.orchestrator.retention;
