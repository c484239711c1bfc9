package io.durablecheckout.activities.receipts;

import io.durablecheckout.api.values.OperationId;

/**
 * A message to send: {@code body} is the plain text part, {@code html} the HTML alternative (null: text only). The
 * outbox ({@code outbound_messages}) and the demo mail sink keep the plain text.
 *
 * @param fromName  the display name on From (the merchant's), or null
 * @param inReplyTo the operation whose message this one answers (its Message-ID goes into In-Reply-To and
 *                  References), or null
 */
public record OutboundMessage(String recipient, String subject, String body, String html, String fromName,
                              OperationId inReplyTo) {

    public OutboundMessage(String recipient, String subject, String body) {
        this(recipient, subject, body, null);
    }

    public OutboundMessage(String recipient, String subject, String body, String html) {
        this(recipient, subject, body, html, null, null);
    }

    OutboundMessage to(String address) {
        return new OutboundMessage(address, subject, body, html, fromName, inReplyTo);
    }
}
