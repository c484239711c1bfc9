package io.durablecheckout.orchestrator.replay;

import java.util.Map;

/**
 * One recorded event of a checkout's stream, as replay reads it (from the event store or from a bundle).
 *
 * @param sequence     the aggregate sequence number (0 is the creation)
 * @param payload      the deserialized event (through the upcasters, at today's revision)
 * @param metaData     the event's metadata, including the recorded input ({@link RecordedInputs})
 * @param inputPayload the recorded input's payload as stored, read as its command or deadline payload only when
 *                     replayed; null if this event carries no recorded input
 */
public record HistoryEvent(long sequence, Object payload, Map<String, Object> metaData,
                           RecordedInputs.StoredPayload inputPayload) {

    public String type() {
        return payload.getClass().getSimpleName();
    }

    /**
     * Which input caused this event: the handled message's id, which Axon records on every event as
     * {@code correlationId} (the recorded input itself is on the first event of each input only).
     */
    Object inputId() {
        Map<String, Object> input = input();
        return input != null ? input.get("id") : metaData.get("correlationId");
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> input() {
        Object input = metaData.get(RecordedInputs.INPUT);
        return input instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
    }
}
