/**
 * The saga store that writes only what a handler changed and caches lookups while this node holds the claims, and
 * the token store that tells it when those claims change.
 */
package io.durablecheckout.orchestrator.axon.saga;
