/**
 * The {@code checkout_summary} projection, its rebuild, and the view of what is known and pending that it and
 * the API fold from events. Depends on {@code checkout} and {@code replay} (reading stored events), nothing above.
 */
package io.durablecheckout.orchestrator.readmodel;
