/**
 * The correlation data provider that reads the few metadata keys it needs from a stored event's bytes.
 */
package io.durablecheckout.orchestrator.axon.messaging;
