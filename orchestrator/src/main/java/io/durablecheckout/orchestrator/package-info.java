/**
 * The entry points: the application ({@code CheckoutApplication}) and the replay command line it dispatches to.
 * They may depend on every package below; nothing depends on them.
 */
package io.durablecheckout.orchestrator;
