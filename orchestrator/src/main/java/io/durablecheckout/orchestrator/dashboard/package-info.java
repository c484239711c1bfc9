/**
 * The operators' dashboard at {@code /dashboard}: its sign-in chain, JSON endpoints, repair previews and bulk
 * jobs, and the domain metrics read from the database. The top of the HTTP layer: it may use {@code web}, never the
 * other way round.
 */
package io.durablecheckout.orchestrator.dashboard;
