/**
 * The wiring: Axon's stores, serializers, processors and deadline manager (built from the extensions in
 * {@code axon}), the data source and the embedded PostgreSQL, and the start-up checks. May depend on any feature
 * package; only the entry points depend on it.
 */
package io.durablecheckout.orchestrator.config;
