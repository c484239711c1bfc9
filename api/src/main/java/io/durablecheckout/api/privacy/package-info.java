/**
 * Personal data as the services share it: the sealed-field format and the port that seals, reveals and erases it.
 */
package io.durablecheckout.api.privacy;
