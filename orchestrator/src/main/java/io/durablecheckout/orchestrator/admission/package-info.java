/**
 * Back-pressure at the front door: a tenant's new checkouts are refused (429) while its backlog is at its share of
 * the limit. Depends only on {@code http} (problem details) and the published language's values.
 */
package io.durablecheckout.orchestrator.admission;
