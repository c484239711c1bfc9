/**
 * What several nodes on one PostgreSQL need: command retries after a lost append race, segment balancing, who
 * holds which segment, the deadline execution log. Depends on no other package of the orchestrator.
 */
package io.durablecheckout.orchestrator.cluster;
