/**
 * Back-pressure at the front door: new checkouts are refused (429) while the backlog is at its limit.
 * Depends only on {@code http} (problem details).
 */
package io.durablecheckout.orchestrator.admission;
