/**
 * The commands on the Checkout aggregate (family {@code CheckoutCommand}).
 */
package io.durablecheckout.api.command;
