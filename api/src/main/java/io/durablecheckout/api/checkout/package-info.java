/**
 * The events of the Checkout aggregate; the intents among them implement {@code ActivityIntent}.
 */
package io.durablecheckout.api.checkout;
