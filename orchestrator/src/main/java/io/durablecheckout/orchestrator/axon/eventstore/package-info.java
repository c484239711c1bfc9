/**
 * The event store's storage engine (no snapshots, paced open-ended fetches), the wake-up event source for pooled
 * processors, and the resolver that reads PostgreSQL's duplicate key as Axon's concurrency conflict.
 */
package io.durablecheckout.orchestrator.axon.eventstore;
