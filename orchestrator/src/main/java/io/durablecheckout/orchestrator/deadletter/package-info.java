/**
 * Poison events: which processors park them (per checkout), the policy that decides, the saga's own parking,
 * and the operators' view with retry and evict. Depends on {@code saga} and {@code readmodel} for their processors'
 * names only.
 */
package io.durablecheckout.orchestrator.deadletter;
