package io.durablecheckout.orchestrator.replay;

import java.time.Instant;
import java.util.Map;

/**
 * One recorded event of a checkout's stream, as replay reads it (from the event store or from a bundle).
 *
 * @param sequence the aggregate sequence number (0 is the creation)
 * @param payload  the deserialized event (through the upcasters, at today's revision)
 * @param metaData the event's metadata, including the recorded input ({@link RecordedInputs})
 */
public record HistoryEvent(long sequence, Object payload, Map<String, Object> metaData, Instant timestamp) {

    public String type() {
        return payload.getClass().getSimpleName();
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> input() {
        Object input = metaData.get(RecordedInputs.INPUT);
        return input instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
    }
}
