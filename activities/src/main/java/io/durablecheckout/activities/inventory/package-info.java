/**
 * The inventory service: stock reservations and releases with their idempotency and fencing, the catalogue
 * query, the demo's stock. Depends on the shared kernel only.
 */
package io.durablecheckout.activities.inventory;
