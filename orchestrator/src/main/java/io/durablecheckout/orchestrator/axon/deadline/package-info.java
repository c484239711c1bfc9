/**
 * The db-scheduler deadline manager that writes lease rows in the unit of work's transaction, batched per root unit
 * of work, and the db-scheduler task that retries a failed deadline promptly.
 */
package io.durablecheckout.orchestrator.axon.deadline;
