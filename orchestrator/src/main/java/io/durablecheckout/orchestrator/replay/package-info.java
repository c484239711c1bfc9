/**
 * Replay of decisions: recorded inputs, stored histories, history bundles, the replayer and its report. Depends on
 * {@code checkout} and {@code serialization}; the command line gets its database from the entry point.
 */
package io.durablecheckout.orchestrator.replay;
