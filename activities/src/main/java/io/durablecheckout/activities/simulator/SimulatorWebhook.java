package io.durablecheckout.activities.simulator;

/**
 * The body of a simulator webhook. {@code eventId} is derived from the operation and its decision, so a duplicate
 * delivery carries the same id. {@code tenantId}, {@code amountMinor} and {@code currency} are what the provider
 * recorded for the operation; the receiver checks them against the checkout. {@code occurredAt} is ISO-8601.
 */
public record SimulatorWebhook(String eventId, String operationId, String status, String reference,
                               String tenantId, long amountMinor, String currency, String occurredAt) {
}
