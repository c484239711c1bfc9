package io.durablecheckout.activities.receipts;

/**
 * A message to send: {@code body} is the plain text part, {@code html} the HTML alternative (null: text only). The
 * outbox ({@code outbound_messages}) and the demo mail sink keep the plain text.
 */
public record OutboundMessage(String recipient, String subject, String body, String html) {

    public OutboundMessage(String recipient, String subject, String body) {
        this(recipient, subject, body, null);
    }

    OutboundMessage to(String address) {
        return new OutboundMessage(address, subject, body, html);
    }
}
