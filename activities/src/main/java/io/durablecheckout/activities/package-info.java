/**
 * The activity services' shared kernel (fenced operations, savepoints, leases and heartbeats, metrics, the seams
 * for fault injection) and their wiring ({@code ActivitiesConfiguration}, {@code ActivitiesAutoConfiguration}). Only
 * the wiring names a service package; the services meet the orchestrator only through the event store.
 */
package io.durablecheckout.activities;
