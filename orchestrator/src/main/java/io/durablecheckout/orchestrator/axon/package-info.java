/**
 * Axon Framework and db-scheduler extensions the product installs, one sub-package per Axon extension point:
 * {@code eventstore} (the storage engine without snapshots, the wake-up event source, the duplicate-key resolver),
 * {@code saga} (the saga store that writes only what changed, the token store that tells it of claim changes),
 * {@code deadline} (the lease deadline manager, the prompt retry of db-scheduler tasks), {@code aggregate} (the
 * confirmed aggregate cache, its stale-copy check, the command target resolver, the constructor aggregate factory)
 * and {@code messaging} (the correlation data provider that reads stored metadata keys only). Knows nothing of the
 * product (ArchitectureTest): what a piece needs from it arrives as a parameter or through a small interface here
 * ({@code deadline.DeadlineObserver}); {@code config} builds them.
 */
package io.durablecheckout.orchestrator.axon;
