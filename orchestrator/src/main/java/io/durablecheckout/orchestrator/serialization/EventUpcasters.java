package io.durablecheckout.orchestrator.serialization;

import org.axonframework.serialization.upcasting.event.EventUpcaster;
import org.axonframework.serialization.upcasting.event.EventUpcasterChain;

import org.axonframework.eventhandling.EventData;
import org.axonframework.eventhandling.GenericDomainEventEntry;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;
import org.axonframework.serialization.SimpleSerializedType;
import org.axonframework.serialization.upcasting.event.InitialEventRepresentation;
import org.axonframework.serialization.upcasting.event.IntermediateEventRepresentation;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Every upcaster of the event store, in order. One chain for the event store, the replayer's store reader and bundle
 * loading, so an old event reads the same everywhere.
 */
public final class EventUpcasters {

    private EventUpcasters() {
    }

    public static List<EventUpcaster> all() {
        return List.of(new CheckoutCreatedUpcaster(), new CheckoutCreatedReceiptUpcaster(),
                new CheckoutCreatedCaptureUpcaster(), new CheckoutConfirmedUpcaster(),
                new ActivityRetryScheduledUpcaster());
    }

    public static EventUpcasterChain chain() {
        return CHAIN;
    }

    private static final EventUpcasterChain CHAIN = new EventUpcasterChain(all());
    private static final Map<String, Boolean> CURRENT = new ConcurrentHashMap<>();

    /**
     * One stored payload as today's event, through the upcasters if it is at an older revision (for readers that
     * bypass the event store, such as the read model's offline rebuild).
     */
    @SuppressWarnings("unchecked")
    public static <T> T deserialize(Serializer serializer, byte[] payload, String type, String revision) {
        boolean current = CURRENT.computeIfAbsent(type + "@" + revision, k -> Objects.equals(revision,
                serializer.typeForClass(serializer.classForType(new SimpleSerializedType(type, revision)))
                        .getRevision()));
        if (current) {
            return serializer.deserialize(new SimpleSerializedObject<>(payload, byte[].class, type, revision));
        }
        EventData<byte[]> data = new GenericDomainEventEntry<>("", "", 0, "", Instant.EPOCH.toString(), type,
                revision, payload, "{}".getBytes(StandardCharsets.UTF_8));
        IntermediateEventRepresentation upcast = CHAIN.upcast(
                Stream.of(new InitialEventRepresentation(data, serializer))).findFirst()
                .orElseThrow(() -> new IllegalStateException("an upcaster dropped " + type + "@" + revision));
        return (T) serializer.deserialize(upcast.getData());
    }
}
