package io.durablecheckout.activities.receipts;

/** A message placed in the outbox; a mail relay drains {@code outbound_messages}. */
public record OutboundMessage(String recipient, String subject, String body) {
}
