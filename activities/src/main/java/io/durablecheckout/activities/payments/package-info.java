/**
 * The payments service: the HTTP client of the payment provider, the operations ledger, and the provider
 * protocol and webhook signatures (which the simulator uses, not the other way round). Depends on the shared kernel
 * and {@code privacy}.
 */
package io.durablecheckout.activities.payments;
