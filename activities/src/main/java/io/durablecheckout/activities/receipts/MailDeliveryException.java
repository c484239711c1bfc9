package io.durablecheckout.activities.receipts;

/**
 * A {@link MailPort} could not hand a message over. {@code finalForRecipient}: the mail service refused the recipient
 * for good (an SMTP 5xx to {@code RCPT TO}); sending again would be refused again, so the operation is recorded as
 * undeliverable and never sent again. Otherwise (a 4xx, a dropped or refused connection, a timeout) the message was
 * not accepted and a retry under the same operation id is safe.
 */
public class MailDeliveryException extends RuntimeException {

    private final boolean finalForRecipient;

    public MailDeliveryException(String message, boolean finalForRecipient, Throwable cause) {
        super(message, cause);
        this.finalForRecipient = finalForRecipient;
    }

    public boolean finalForRecipient() {
        return finalForRecipient;
    }
}
