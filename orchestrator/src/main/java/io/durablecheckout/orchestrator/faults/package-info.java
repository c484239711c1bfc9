/**
 * Fault injection for the fault matrix (crash points, the worker pause, mutants), off unless
 * {@code checkout.fault-injection.*} is set. It plugs into the product from outside, through Axon interceptors, a
 * servlet filter and the activities' seams; nothing depends on it (ArchitectureTest).
 */
package io.durablecheckout.orchestrator.faults;
