/**
 * Value objects: typed ids, steps, fencing tokens, leases, money, line items.
 */
package io.durablecheckout.api.values;
