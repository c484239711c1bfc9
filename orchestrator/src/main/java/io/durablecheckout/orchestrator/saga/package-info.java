/**
 * The saga that relays the activity services' results to the Checkout aggregate as commands. Part of the core:
 * no clock, no environment, no package above it.
 */
package io.durablecheckout.orchestrator.saga;
