/**
 * The JSON shape of what Axon stores, shared by the running application and the offline readers of stored
 * events: the mappers, the event upcasters (older revisions read as today's) and the plain shapes the API and the
 * replay report print. Depends on no other package of ours.
 */
package io.durablecheckout.orchestrator.serialization;
