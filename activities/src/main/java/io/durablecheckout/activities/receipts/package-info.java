/**
 * The receipts service: receipts and cancellation notices through a {@code MailPort}, recorded once per
 * operation. Depends on the shared kernel and {@code privacy}.
 */
package io.durablecheckout.activities.receipts;
