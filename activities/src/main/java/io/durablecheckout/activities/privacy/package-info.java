/**
 * Personal data sealed under a per-checkout key (crypto-shredding). Depends on nothing of ours.
 */
package io.durablecheckout.activities.privacy;
