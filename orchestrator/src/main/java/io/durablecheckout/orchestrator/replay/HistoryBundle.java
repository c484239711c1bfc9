package io.durablecheckout.orchestrator.replay;

import io.durablecheckout.orchestrator.serialization.EventUpcasters;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.orchestrator.checkout.Checkout;
import io.durablecheckout.orchestrator.checkout.WorkflowPolicy;
import io.durablecheckout.orchestrator.serialization.AxonJson;
import org.axonframework.eventhandling.DomainEventData;
import org.axonframework.eventhandling.GenericDomainEventEntry;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One checkout's history as one JSON file: every event (type, revision, payload, metadata with the recorded inputs
 * and deadline operations; in the printed dialect since format 2, {@link BundleDialect}), the policy it was decided under and the code that exported it. Personal
 * fields are redacted wherever they occur (events and recorded inputs alike, encrypted or not), always to the same
 * placeholder, so the decisions still replay identically: the Checkout copies those values, it never decides on them.
 * <p>
 * Loading reads the events through today's upcasters, like the event store does, and only into the checkout's own
 * types: a bundle naming any other class is refused before that class is looked up ({@link ReplayTypes}).
 */
public final class HistoryBundle {

    /**
     * The format this code writes: 2, in the printed dialect ({@link BundleDialect}). Format 1 (events in the stored
     * shape, at their stored revisions) is still read: bundles written before load and replay as they did.
     */
    public static final String FORMAT = "durable-checkout/history-bundle@2";
    public static final String FORMAT_1 = "durable-checkout/history-bundle@1";
    public static final Set<String> PERSONAL_FIELDS = Set.of("customerEmail", "paymentToken");
    public static final String REDACTED = "[redacted]";

    /** Reads a bundle's rows as the event store's rows are read, into the checkout's own types only (ReplayTypes). */
    private static final org.axonframework.serialization.Serializer READER_SERIALIZER =
            AxonJson.strictEventSerializer();
    private static final StoredHistories READER = new StoredHistories(null, READER_SERIALIZER,
            EventUpcasters.chain());

    private HistoryBundle() {
    }

    /** The bundle of a stored history, redacted. */
    public static ObjectNode export(StoredHistories.History history, Instant exportedAt) {
        ObjectNode bundle = RecordedInputs.MAPPER.createObjectNode();
        bundle.put("format", FORMAT);
        bundle.put("checkoutId", history.checkoutId());
        Object first = history.events().isEmpty() ? null : history.events().get(0).payload();
        if (first instanceof CheckoutCreatedEvent created) {
            bundle.put("tenantId", created.tenantId().value());
        }
        bundle.put("exportedAt", exportedAt.toString());
        ObjectNode code = bundle.putObject("code");
        code.put("version", codeVersion());
        code.put("rulesVersion", WorkflowPolicy.RULES_VERSION);
        if (first instanceof CheckoutCreatedEvent created) {
            bundle.set("policy", BundleDialect.payload(created.policy()));
        }
        ArrayNode redacted = bundle.putArray("redacted");
        PERSONAL_FIELDS.stream().sorted().forEach(redacted::add);
        ArrayNode path = bundle.putArray("path");
        history.events().forEach(e -> path.add(e.type()));
        ArrayNode events = bundle.putArray("events");
        Map<Long, Object> read = new java.util.HashMap<>();
        history.events().forEach(e -> read.put(e.sequence(), e.payload()));
        for (DomainEventData<byte[]> row : history.rows()) {
            ObjectNode e = events.addObject();
            Object event = read.get(row.getSequenceNumber()); // as today's code reads it (through the upcasters)
            e.put("sequence", row.getSequenceNumber());
            e.put("eventIdentifier", row.getEventIdentifier());
            e.put("timestamp", row.getTimestamp().toString());
            e.put("payloadType", row.getPayload().getType().getName());
            e.put("payloadRevision", event == null ? row.getPayload().getType().getRevision()
                    : READER_SERIALIZER.typeForClass(event.getClass()).getRevision());
            e.set("payload", redact(event == null ? readTree(row.getPayload().getData()) : BundleDialect.payload(event)));
            e.set("metaData", redact(BundleDialect.printed(readTree(row.getMetaData().getData()))));
        }
        return bundle;
    }

    /** A bundle read back as a history (through today's upcasters). */
    public static StoredHistories.History read(JsonNode bundle) {
        String format = bundle.path("format").asText();
        if (!FORMAT.equals(format) && !FORMAT_1.equals(format)) {
            throw new IllegalArgumentException("not a history bundle (format " + bundle.path("format") + ", expected "
                    + FORMAT + " or " + FORMAT_1 + ")");
        }
        boolean printed = FORMAT.equals(format);
        String checkoutId = bundle.path("checkoutId").asText();
        List<DomainEventData<byte[]>> rows = new ArrayList<>();
        for (JsonNode e : bundle.path("events")) {
            rows.add(new GenericDomainEventEntry<>(Checkout.TYPE, checkoutId, e.path("sequence").asLong(),
                    e.path("eventIdentifier").asText(), e.path("timestamp").asText(), e.path("payloadType").asText(),
                    e.path("payloadRevision").isNull() ? null : e.path("payloadRevision").asText(),
                    bytes(e.get("payload")),
                    bytes(printed ? BundleDialect.stored(e.get("metaData")) : e.get("metaData"))));
        }
        return READER.history(checkoutId, rows);
    }

    public static StoredHistories.History read(Path file) {
        try {
            return read(RecordedInputs.MAPPER.readTree(file.toFile()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read bundle " + file + ": " + e.getMessage(), e);
        }
    }

    public static StoredHistories.History read(InputStream in) {
        try {
            return read(RecordedInputs.MAPPER.readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read bundle: " + e.getMessage(), e);
        }
    }

    public static void write(JsonNode bundle, Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            BundleDialect.PRINTED.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), bundle);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write bundle " + file + ": " + e.getMessage(), e);
        }
    }

    /** The version of the code that wrote a bundle (the jar's, or "development" when run from classes). */
    public static String codeVersion() {
        String version = HistoryBundle.class.getPackage().getImplementationVersion();
        return version != null ? version : "development";
    }

    /** Replaces every personal field (at any depth) with {@link #REDACTED}. */
    static JsonNode redact(JsonNode node) {
        if (node instanceof ObjectNode object) {
            Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
            List<String> personal = new ArrayList<>();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                if (PERSONAL_FIELDS.contains(field.getKey()) && field.getValue().isTextual()) {
                    personal.add(field.getKey());
                } else {
                    redact(field.getValue());
                }
            }
            personal.forEach(name -> object.set(name, TextNode.valueOf(REDACTED)));
        } else if (node instanceof ArrayNode array) {
            array.forEach(HistoryBundle::redact);
        }
        return node;
    }

    private static JsonNode readTree(byte[] json) {
        try {
            return RecordedInputs.MAPPER.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] bytes(JsonNode node) {
        try {
            return RecordedInputs.MAPPER.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
