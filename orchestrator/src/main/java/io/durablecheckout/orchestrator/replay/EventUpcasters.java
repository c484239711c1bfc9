package io.durablecheckout.orchestrator.replay;

import org.axonframework.serialization.upcasting.event.EventUpcaster;
import org.axonframework.serialization.upcasting.event.EventUpcasterChain;

import java.util.List;

/**
 * Every upcaster of the event store, in order. One chain for the event store, the replayer's store reader and bundle
 * loading, so an old event reads the same everywhere.
 */
public final class EventUpcasters {

    private EventUpcasters() {
    }

    public static List<EventUpcaster> all() {
        return List.of();
    }

    public static EventUpcasterChain chain() {
        return new EventUpcasterChain(all());
    }
}
