/**
 * Queries between the services (the catalogue's unknown SKUs).
 */
package io.durablecheckout.api.query;
