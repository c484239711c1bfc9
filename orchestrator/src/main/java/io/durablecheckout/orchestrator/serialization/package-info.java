/**
 * The JSON shape of what Axon stores, shared by the running application and the offline readers of stored
 * events. Depends on no other package of ours.
 */
package io.durablecheckout.orchestrator.serialization;
