package io.durablecheckout.orchestrator.serialization;

import io.durablecheckout.api.activity.ActivityHeartbeatEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.checkout.ActivityRetryScheduledEvent;
import io.durablecheckout.api.checkout.CheckoutCreatedEvent;
import io.durablecheckout.api.checkout.CheckoutEvent;
import io.durablecheckout.api.checkout.StockReservedEvent;
import org.axonframework.serialization.Revision;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.SimpleSerializedObject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every event has a revision, events are read strictly, and old revisions are read through the upcasters. */
class EventEvolutionTest {

    private final Serializer events = AxonJson.strictEventSerializer();

    @Test
    void every_event_type_declares_its_revision() {
        List<Class<?>> types = new ArrayList<>(List.of(CheckoutEvent.class.getPermittedSubclasses()));
        types.addAll(List.of(ActivityResultEvent.class.getPermittedSubclasses()));
        types.add(ActivityHeartbeatEvent.class);
        assertThat(types).hasSizeGreaterThan(40).allSatisfy(type ->
                assertThat(type.getAnnotation(Revision.class)).as(type.getSimpleName()).isNotNull());
        assertThat(ActivityRetryScheduledEvent.class.getAnnotation(Revision.class).value()).isEqualTo("2");
        assertThat(CheckoutCreatedEvent.class.getAnnotation(Revision.class).value()).isEqualTo("4");
        assertThat(io.durablecheckout.api.checkout.CheckoutConfirmedEvent.class.getAnnotation(Revision.class).value())
                .isEqualTo("2");
    }

    @Test
    void an_unknown_property_is_an_error_not_ignored() {
        String json = "{\"checkoutId\":{\"value\":\"c1\"},\"operationId\":{\"value\":\"c1/reserve-stock\"},"
                + "\"fencingToken\":{\"value\":1},\"renamedField\":\"x\"}";
        assertThatThrownBy(() -> read(json, StockReservedEvent.class.getName(), "1"))
                .hasStackTraceContaining("renamedField");
    }

    @Test
    void a_missing_property_is_an_error_not_null() {
        String json = "{\"checkoutId\":{\"value\":\"c1\"},\"operationId\":{\"value\":\"c1/reserve-stock\"}}";
        assertThatThrownBy(() -> read(json, StockReservedEvent.class.getName(), "1"))
                .hasStackTraceContaining("fencingToken");
    }

    @Test
    void a_revision_1_retry_is_read_at_revision_2_with_its_renamed_field() {
        String old = "{\"checkoutId\":{\"value\":\"c1\"},\"step\":\"RESERVE_STOCK\",\"operationId\":{\"value\":"
                + "\"c1/reserve-stock\"},\"failedAttempt\":1,\"retryAt\":\"2026-01-01T10:00:01Z\","
                + "\"detail\":\"connection reset\"}";
        // without the upcaster the strict serializer refuses it (before, a lenient one read the failure as null)
        assertThatThrownBy(() -> read(old, ActivityRetryScheduledEvent.class.getName(), null))
                .hasStackTraceContaining("lastFailure");
        for (String revision : new String[]{null, "1"}) {
            ActivityRetryScheduledEvent e = EventUpcasters.deserialize(events, bytes(old),
                    ActivityRetryScheduledEvent.class.getName(), revision);
            assertThat(e.lastFailure()).isEqualTo("connection reset");
            assertThat(e.retryAt()).isEqualTo(Instant.parse("2026-01-01T10:00:01Z"));
        }
    }

    @Test
    void a_revision_1_creation_is_read_with_the_policy_of_its_time() {
        String old = "{\"checkoutId\":{\"value\":\"c1\"},\"tenantId\":{\"value\":\"t\"},\"items\":[{\"sku\":"
                + "{\"value\":\"S\"},\"quantity\":1}],\"amount\":{\"minor\":100,\"currency\":\"EUR\"},"
                + "\"paymentToken\":\"tok\",\"customerEmail\":\"a@example.com\",\"idempotencyKey\":\"k\","
                + "\"requestFingerprint\":\"f\",\"createdAt\":\"2026-01-01T10:00:00Z\"}";
        CheckoutCreatedEvent e = EventUpcasters.deserialize(events, bytes(old), CheckoutCreatedEvent.class.getName(),
                null);
        assertThat(e.policy()).isEqualTo(CheckoutCreatedUpcaster.LEGACY);
        assertThat(e.policy().maxAttempts()).isEqualTo(8);
    }

    @Test
    void a_revision_2_creation_is_read_at_revision_3_without_receipt_details_and_a_revision_3_one_keeps_them() {
        String v2 = "{\"checkoutId\":{\"value\":\"c1\"},\"tenantId\":{\"value\":\"t\"},\"items\":[{\"sku\":"
                + "{\"value\":\"S\"},\"quantity\":1}],\"amount\":{\"minor\":100,\"currency\":\"EUR\"},"
                + "\"paymentToken\":\"tok\",\"customerEmail\":\"a@example.com\",\"idempotencyKey\":\"k\","
                + "\"requestFingerprint\":\"f\",\"createdAt\":\"2026-01-01T10:00:00Z\",\"policy\":"
                + new String(events.serialize(CheckoutCreatedUpcaster.LEGACY, byte[].class).getData(),
                StandardCharsets.UTF_8) + "}";
        // without the upcaster the strict serializer refuses it (a missing property is an error)
        assertThatThrownBy(() -> read(v2, CheckoutCreatedEvent.class.getName(), "3"))
                .hasStackTraceContaining("receipt");
        CheckoutCreatedEvent e = EventUpcasters.deserialize(events, bytes(v2), CheckoutCreatedEvent.class.getName(),
                "2");
        assertThat(e.receipt()).isNull();
        assertThat(e.policy()).isEqualTo(CheckoutCreatedUpcaster.LEGACY);
        // revision 1 goes through both upcasters
        String v1 = v2.substring(0, v2.indexOf(",\"policy\"")) + "}";
        assertThat(EventUpcasters.<CheckoutCreatedEvent>deserialize(events, bytes(v1),
                CheckoutCreatedEvent.class.getName(), null).receipt()).isNull();

        io.durablecheckout.api.values.ReceiptDetails details = new io.durablecheckout.api.values.ReceiptDetails(
                "ORD-1", "Ada's Tea", "Ada", List.of(new io.durablecheckout.api.values.ReceiptDetails.Line("S", 1,
                "Sencha", 100L)), null, null, null);
        CheckoutCreatedEvent current = new CheckoutCreatedEvent(e.checkoutId(), e.tenantId(), e.items(), e.amount(),
                e.paymentToken(), e.customerEmail(), e.idempotencyKey(), e.requestFingerprint(), e.createdAt(),
                e.policy(), details);
        byte[] stored = events.serialize(current, byte[].class).getData();
        assertThat((Object) read(new String(stored, StandardCharsets.UTF_8), CheckoutCreatedEvent.class.getName(), "4"))
                .isEqualTo(current);
    }

    @Test
    void a_revision_3_creation_has_no_capture_mode_and_a_revision_1_confirmation_no_hold() {
        CheckoutCreatedEvent created = new CheckoutCreatedEvent(new io.durablecheckout.api.values.CheckoutId("c1"),
                new io.durablecheckout.api.values.TenantId("t"), List.of(new io.durablecheckout.api.values.LineItem(
                new io.durablecheckout.api.values.Sku("S"), 1)), new io.durablecheckout.api.values.Money(100, "EUR"),
                "tok", "a@example.com", "k", "f", java.time.Instant.parse("2026-01-01T10:00:00Z"),
                CheckoutCreatedUpcaster.LEGACY, null);
        String v4 = new String(events.serialize(created, byte[].class).getData(), StandardCharsets.UTF_8);
        String v3 = v4.replace(",\"capture\":null", "").replace(",\"holdValidity\":null", "");
        assertThat(v3).doesNotContain("capture").doesNotContain("holdValidity");
        assertThatThrownBy(() -> read(v3, CheckoutCreatedEvent.class.getName(), "4")).hasStackTraceContaining("capture");
        assertThat((Object) EventUpcasters.deserialize(events, bytes(v3), CheckoutCreatedEvent.class.getName(), "3"))
                .isEqualTo(created);

        String confirmed = "{\"checkoutId\":{\"value\":\"c1\"}}";
        assertThat((Object) EventUpcasters.deserialize(events, bytes(confirmed),
                io.durablecheckout.api.checkout.CheckoutConfirmedEvent.class.getName(), null))
                .isEqualTo(new io.durablecheckout.api.checkout.CheckoutConfirmedEvent(
                        new io.durablecheckout.api.values.CheckoutId("c1")));
    }

    private Object read(String json, String type, String revision) {
        return events.deserialize(new SimpleSerializedObject<>(bytes(json), byte[].class, type, revision));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
