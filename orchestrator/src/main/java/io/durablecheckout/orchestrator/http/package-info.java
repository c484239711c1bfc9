/**
 * HTTP plumbing shared by every endpoint and filter: RFC 9457 problem details (and the exception that carries one),
 * request and text limits. Depends on no other package of ours.
 */
package io.durablecheckout.orchestrator.http;
