/**
 * The HTTP API: checkouts, operators, administrators, provider notifications, replay and the dead-letter
 * endpoints. Controllers translate HTTP to commands and to the {@code service} package; they may depend on every
 * feature package below them; only {@code dashboard} and the wiring depend on this one.
 */
package io.durablecheckout.orchestrator.web;
