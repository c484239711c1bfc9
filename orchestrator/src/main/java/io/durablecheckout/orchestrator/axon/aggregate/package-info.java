/**
 * The aggregate cache whose copies are confirmed where the state lives, the stale-copy check around handlers, the
 * command target resolver that inspects each command class once, and the aggregate factory that calls a
 * constructor.
 */
package io.durablecheckout.orchestrator.axon.aggregate;
