package io.durablecheckout.orchestrator.config;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.orchestrator.serialization.AxonJson;
import org.axonframework.common.jdbc.UnitOfWorkAwareConnectionProviderWrapper;
import org.axonframework.common.transaction.NoTransactionManager;
import org.axonframework.eventhandling.GapAwareTrackingToken;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.eventhandling.ReplayToken;
import org.axonframework.eventhandling.TrackingToken;
import org.axonframework.eventhandling.tokenstore.jdbc.JdbcTokenStore;
import org.axonframework.eventhandling.tokenstore.jdbc.TokenSchema;
import org.axonframework.eventsourcing.eventstore.EmbeddedEventStore;
import org.axonframework.eventsourcing.eventstore.jdbc.EventSchema;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.json.JacksonSerializer;
import org.axonframework.spring.jdbc.SpringDataSourceConnectionProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease rule's {@code IntentProgress} ({@link ActivityPorts#progressOf}, over {@code ProcessorPositions}) on a real PostgreSQL event store and token store (Axon's own JDBC stores, the
 * product's serializer): an intent counts as passed only when every segment of its step's processor is past its
 * global index, and not while it is a gap of a segment's token.
 */
class IntentProgressTest {

    static ScratchDatabase database;
    static JdbcTemplate jdbc;
    static JdbcTokenStore tokens;
    static io.durablecheckout.orchestrator.checkout.IntentProgress progress;
    static final CheckoutId CHECKOUT = new CheckoutId("co_progress");
    static long intentIndex;

    @BeforeAll
    static void database() throws Exception {
        database = ScratchDatabase.start("intent-progress", "/db/migration/core/V1__axon_event_store_tokens_sagas.sql",
                "/db/migration/activities/V194_160__payment_intake.sql");
        jdbc = new JdbcTemplate(database.dataSource());
        Serializer serializer = JacksonSerializer.builder().objectMapper(AxonJson.objectMapper()).build();
        SpringDataSourceConnectionProvider connections = new SpringDataSourceConnectionProvider(database.dataSource());
        EmbeddedEventStore store = EmbeddedEventStore.builder().storageEngine(JdbcEventStorageEngine.builder()
                .connectionProvider(new UnitOfWorkAwareConnectionProviderWrapper(connections))
                .transactionManager(NoTransactionManager.INSTANCE)
                .eventSerializer(serializer).snapshotSerializer(serializer)
                .schema(new EventSchema()).dataType(byte[].class).build()).build();
        for (int i = 0; i < 3; i++) { // other checkouts' events first, so indexes and sequence numbers differ
            append(store, new GenericDomainEventMessage<>("Checkout", "co_other", i, "other " + i));
        }
        append(store, new GenericDomainEventMessage<>("Checkout", CHECKOUT.value(), 0, "created"));
        append(store, new GenericDomainEventMessage<>("Checkout", CHECKOUT.value(), 1, "intent"));
        store.shutDown();
        intentIndex = jdbc.queryForObject("SELECT globalindex FROM domainevententry WHERE aggregateidentifier = ? "
                + "AND sequencenumber = 1", Long.class, CHECKOUT.value());
        tokens = JdbcTokenStore.builder().connectionProvider(connections).serializer(serializer)
                .schema(new TokenSchema()).contentType(byte[].class).nodeId("test-node").build();
        progress = ActivityPorts.progressOf(jdbc, serializer);
    }

    @AfterAll
    static void stop() throws Exception {
        database.close();
    }

    private static void append(EmbeddedEventStore store, GenericDomainEventMessage<?> event) {
        DefaultUnitOfWork<?> uow = DefaultUnitOfWork.startAndGet(null);
        store.publish(event);
        uow.commit();
    }

    private static void positions(String processor, TrackingToken... segments) {
        jdbc.update("DELETE FROM tokenentry WHERE processorname = ?", processor);
        tokens.initializeTokenSegments(processor, segments.length, null);
        for (int segment = 0; segment < segments.length; segment++) {
            tokens.fetchToken(processor, segment); // claims it, as a processor would
            tokens.storeToken(segments[segment], processor, segment);
        }
    }

    private static GapAwareTrackingToken at(long index, Long... gaps) {
        return GapAwareTrackingToken.newInstance(index, Set.of(gaps));
    }

    private static boolean passed(Step step) {
        return progress.passed(CHECKOUT, step, 1);
    }

    @Test
    void every_segment_past_the_intent_has_passed_it() {
        positions("payments", at(intentIndex), at(intentIndex + 5));
        assertThat(passed(Step.AUTHORIZE_PAYMENT)).isTrue();
        assertThat(passed(Step.REFUND_PAYMENT)).isTrue();
    }

    @Test
    void a_payment_intent_still_in_the_intake_is_not_passed_though_its_processor_is_past_it() {
        positions("payments", at(intentIndex + 5));
        jdbc.update("INSERT INTO payment_intake (tenant_id, checkout_id, sequence_number) VALUES ('t', ?, 1)",
                CHECKOUT.value());
        try {
            assertThat(passed(Step.AUTHORIZE_PAYMENT)).as("queued or in a call").isFalse();
            assertThat(progress.passed(CHECKOUT, Step.AUTHORIZE_PAYMENT, 0)).as("the row holds its own event only")
                    .isTrue();
            jdbc.update("DELETE FROM payment_intake");
            assertThat(passed(Step.AUTHORIZE_PAYMENT)).as("drained or parked").isTrue();
        } finally {
            jdbc.update("DELETE FROM payment_intake");
        }
    }

    @Test
    void one_segment_before_the_intent_means_not_passed() {
        positions("payments", at(intentIndex + 5), at(intentIndex - 1));
        assertThat(passed(Step.AUTHORIZE_PAYMENT)).isFalse();
    }

    @Test
    void an_intent_in_a_segments_gaps_is_not_passed() {
        positions("payments", at(intentIndex + 2, intentIndex), at(intentIndex + 2));
        assertThat(passed(Step.AUTHORIZE_PAYMENT)).isFalse();
        positions("payments", at(intentIndex + 2, intentIndex + 1), at(intentIndex + 2));
        assertThat(passed(Step.AUTHORIZE_PAYMENT)).as("a gap after the intent").isTrue();
    }

    @Test
    void a_segment_without_a_token_or_a_processor_without_segments_has_not_passed_it() {
        positions("receipts", at(intentIndex + 1), null);
        assertThat(passed(Step.SEND_RECEIPT)).isFalse();
        jdbc.update("DELETE FROM tokenentry WHERE processorname = 'inventory'");
        assertThat(passed(Step.RESERVE_STOCK)).isFalse();
    }

    @Test
    void a_replaying_segment_is_read_at_its_current_position() {
        positions("inventory", ReplayToken.createReplayToken(at(intentIndex + 10), at(intentIndex)));
        assertThat(passed(Step.RELEASE_STOCK)).isTrue();
        positions("inventory", ReplayToken.createReplayToken(at(intentIndex + 10), at(intentIndex - 1)));
        assertThat(passed(Step.RELEASE_STOCK)).isFalse();
    }

    @Test
    void each_step_is_read_at_its_own_processor_and_an_unknown_intent_is_not_passed() {
        positions("payments", at(intentIndex + 1));
        positions("receipts", at(intentIndex - 1));
        assertThat(passed(Step.VOID_PAYMENT)).isTrue();
        assertThat(passed(Step.SEND_CANCELLATION_NOTICE)).isFalse();
        assertThat(progress.passed(CHECKOUT, Step.VOID_PAYMENT, 7)).as("no such event").isFalse();
        assertThat(ActivityPorts.processorOf(Step.RECONCILE_PAYMENT)).isEqualTo("payments");
        assertThat(ActivityPorts.processorOf(Step.RESERVE_STOCK)).isEqualTo("inventory");
    }

    /** Each step names the processor whose worker handles its intent (what the lease rule asks about). */
    @Test
    void every_step_names_the_processor_of_the_worker_that_handles_its_intent() throws Exception {
        java.util.Map<String, Class<?>> workers = java.util.Map.of(
                io.durablecheckout.activities.inventory.InventoryWorker.PROCESSING_GROUP,
                io.durablecheckout.activities.inventory.InventoryWorker.class,
                io.durablecheckout.activities.payments.PaymentsWorker.PROCESSING_GROUP,
                io.durablecheckout.activities.payments.PaymentsWorker.class,
                io.durablecheckout.activities.receipts.ReceiptsWorker.PROCESSING_GROUP,
                io.durablecheckout.activities.receipts.ReceiptsWorker.class);
        for (Class<?> intent : io.durablecheckout.api.checkout.ActivityIntent.class.getPermittedSubclasses()) {
            Step step = (Step) intent.getMethod("step").invoke(
                    org.objenesis.ObjenesisHelper.newInstance(intent));
            Class<?> worker = workers.get(step.service());
            assertThat(worker).as("%s names %s", step, step.service()).isNotNull();
            assertThat(java.util.Arrays.stream(worker.getMethods())
                    .anyMatch(m -> m.getParameterCount() == 1 && m.getParameterTypes()[0] == intent))
                    .as("%s handles %s", worker.getSimpleName(), intent.getSimpleName()).isTrue();
        }
    }
}
