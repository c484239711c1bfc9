/**
 * The activity services' result events (family {@code ActivityResultEvent}).
 */
package io.durablecheckout.api.activity;
