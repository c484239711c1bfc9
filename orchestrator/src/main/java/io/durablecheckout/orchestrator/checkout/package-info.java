/**
 * The Checkout aggregate: the workflow's state machine and the fencing authority, its policy, deadlines and the
 * metadata keys of operator actions. The core: it depends on the {@code api} module only, never on a package above it
 * (no clock, no I/O, no Spring environment; ArchitectureTest).
 */
package io.durablecheckout.orchestrator.checkout;
