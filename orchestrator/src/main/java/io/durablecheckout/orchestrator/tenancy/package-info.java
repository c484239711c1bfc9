/**
 * Who is calling: API keys, callers and their roles, the audit log, rate limits, the demo keys and the HTTP
 * security chains. Depends only on {@code http}; {@code web} and {@code dashboard} depend on it.
 */
package io.durablecheckout.orchestrator.tenancy;
