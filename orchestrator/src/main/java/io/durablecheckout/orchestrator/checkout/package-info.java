/**
 * The checkout core: the decision function ({@code CheckoutDecider}), the immutable facts and their fold
 * ({@code CheckoutFacts}), the workflow table with its policies ({@code Workflow}) and the thin Axon aggregate around
 * them ({@code Checkout}). Imports only the api module and Axon; no clock, no random ids, no I/O.
 */
package io.durablecheckout.orchestrator.checkout;
