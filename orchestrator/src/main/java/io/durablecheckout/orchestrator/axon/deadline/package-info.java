/**
 * The db-scheduler deadline manager that writes lease rows in the unit of work's transaction, batched per root unit of
 * work; the db-scheduler task that retries a failed deadline promptly; the interceptor that measures how late
 * deadlines fire; and the scheduler's stop in the wiring's order.
 */
package io.durablecheckout.orchestrator.axon.deadline;
