package io.durablecheckout.activities.simulator;

/**
 * The body of a simulator webhook. {@code eventId} is derived from the operation and its decision, so a duplicate
 * delivery carries the same id. {@code occurredAt} is ISO-8601.
 */
public record SimulatorWebhook(String eventId, String operationId, String status, String reference,
                               String occurredAt) {
}
