package io.durablecheckout.activities;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.activities.inventory.InventoryQueryHandler;
import io.durablecheckout.activities.inventory.InventoryResource;
import io.durablecheckout.activities.inventory.InventoryWorker;
import io.durablecheckout.activities.receipts.ReceiptsResource;
import io.durablecheckout.activities.receipts.ReceiptsWorker;
import io.durablecheckout.api.activity.ReceiptDeliverySucceededEvent;
import io.durablecheckout.api.activity.StockReservationSucceededEvent;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.checkout.ReceiptRequestedEvent;
import io.durablecheckout.api.checkout.StockReservationRequestedEvent;
import io.durablecheckout.api.query.FindUnknownSkusQuery;
import io.durablecheckout.api.query.UnknownSkus;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.LineItem;
import io.durablecheckout.api.values.Money;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Sku;
import io.durablecheckout.api.values.Step;
import io.durablecheckout.api.values.TenantId;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.config.Configuration;
import org.axonframework.config.Configurer;
import org.axonframework.config.DefaultConfigurer;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.tokenstore.jdbc.JdbcTokenStore;
import org.axonframework.eventhandling.tokenstore.jdbc.PostgresTokenTableFactory;
import org.axonframework.eventsourcing.eventstore.jdbc.JdbcEventStorageEngine;
import org.axonframework.eventsourcing.eventstore.jdbc.PostgresEventTableFactory;
import org.axonframework.messaging.MessageHandlerInterceptor;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.json.JacksonSerializer;
import org.axonframework.spring.jdbc.SpringDataSourceConnectionProvider;
import org.axonframework.spring.messaging.unitofwork.SpringTransactionManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.durablecheckout.activities.TestIntents.lease;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The workers inside real Axon streaming processors on a JDBC event store in PostgreSQL, with Axon's
 * SpringTransactionManager over the same DataSource, as the orchestrator runs them: intents in, result events out
 * of the same store, and a unit of work that fails after the handler leaves neither the resource write nor the
 * result behind.
 */
class AxonProcessorsIntegrationTest extends PostgresTestSupport {

    private static final TenantId TENANT = new TenantId("t1");

    private static Configuration axon;
    private static InventoryAdmin admin;
    private static final List<ActivityIntent> seenByHook = new CopyOnWriteArrayList<>();
    /** Checkout ids whose first unit of work in the inventory processor fails after the handler ran. */
    private static final Set<String> crashOnce = ConcurrentHashMap.newKeySet();

    @BeforeAll
    static void startAxon() {
        SpringTransactionManager transactions = new SpringTransactionManager(transactionManager);
        ConnectionProvider connections = new SpringDataSourceConnectionProvider(dataSource);
        Serializer serializer = JacksonSerializer.builder()
                .objectMapper(new ObjectMapper().registerModule(new JavaTimeModule())
                        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS))
                .build();
        JdbcEventStorageEngine engine = JdbcEventStorageEngine.builder()
                .connectionProvider(connections)
                .transactionManager(transactions)
                .eventSerializer(serializer)
                .snapshotSerializer(serializer)
                .build();
        engine.createSchema(PostgresEventTableFactory.INSTANCE);
        JdbcTokenStore tokenStore = JdbcTokenStore.builder()
                .connectionProvider(connections)
                .serializer(serializer)
                .build();
        tokenStore.createSchema(PostgresTokenTableFactory.INSTANCE);

        admin = new InventoryAdmin(dataSource);
        InventoryResource inventory = new InventoryResource(dataSource);
        ReceiptsResource receipts = new ReceiptsResource(dataSource, vault);
        ActivityMetrics metrics = new ActivityMetrics(new SimpleMeterRegistry());
        WorkerPauseHook hook = seenByHook::add;
        MessageHandlerInterceptor<EventMessage<?>> crashAfterHandler = (unitOfWork, chain) -> {
            Object result = chain.proceed();
            if (unitOfWork.getMessage().getPayload() instanceof ActivityIntent intent
                    && crashOnce.remove(intent.checkoutId().value())) {
                throw new IllegalStateException("simulated crash after the handler, before commit");
            }
            return result;
        };

        Configurer configurer = DefaultConfigurer.defaultConfiguration()
                .configureEmbeddedEventStore(c -> engine)
                .configureTransactionManager(c -> transactions)
                .configureSerializer(c -> serializer)
                .configureEventSerializer(c -> serializer)
                .configureMessageSerializer(c -> serializer)
                .registerQueryHandler(c -> new InventoryQueryHandler(admin));
        configurer.eventProcessing()
                .usingPooledStreamingEventProcessors((c, builder) -> builder.initialSegmentCount(2)
                        // Reclaim a segment soon after the simulated crash released it (default 5 s).
                        .tokenClaimInterval(200))
                .registerTokenStore(c -> tokenStore)
                .registerEventHandler(c -> new InventoryWorker(inventory, c.eventGateway(), metrics))
                .registerEventHandler(c -> new ReceiptsWorker(receipts, c.eventGateway(), metrics))
                .registerHandlerInterceptor(InventoryWorker.PROCESSING_GROUP, c -> crashAfterHandler);
        // as ActivitiesAutoConfiguration provides it: the pause hook sees each intent inside the lease hold
        configurer.registerHandlerEnhancerDefinition(c -> new IntentHandling(() -> LeaseKeeper.NONE, () -> hook));
        axon = configurer.buildConfiguration();
        axon.start();
    }

    @AfterAll
    static void stopAxon() {
        if (axon != null) axon.shutdown();
    }

    private static int stored(Class<?> payloadType, OperationId operationId) {
        Integer count = jdbc.queryForObject("SELECT count(*) FROM domainevententry WHERE payloadtype = ?"
                        + " AND convert_from(payload, 'UTF8') LIKE ?", Integer.class,
                payloadType.getName(), "%\"" + operationId.value() + "\"%");
        return count == null ? 0 : count;
    }

    @Test
    void processorsNamedByProcessingGroupRunTheWorkers() {
        assertThat(axon.eventProcessingConfiguration().eventProcessor("inventory")).isPresent();
        assertThat(axon.eventProcessingConfiguration().eventProcessor("receipts")).isPresent();
    }

    @Test
    void intentInResultOut() {
        admin.seed(TENANT, "AX-1", 10);
        CheckoutId id = new CheckoutId("chk-ax-1");
        OperationId reserveOp = OperationId.of(id, Step.RESERVE_STOCK);
        OperationId receiptOp = OperationId.of(id, Step.SEND_RECEIPT);
        StockReservationRequestedEvent reserve = new StockReservationRequestedEvent(id, TENANT,
                List.of(new LineItem(new Sku("AX-1"), 4)), lease(id, Step.RESERVE_STOCK, 1));

        axon.eventGateway().publish(reserve, new ReceiptRequestedEvent(id, TENANT, "c@example.com",
                new Money(100, "EUR"), lease(id, Step.SEND_RECEIPT, 1)));

        await().atMost(15, TimeUnit.SECONDS).until(() -> stored(StockReservationSucceededEvent.class, reserveOp) == 1
                && stored(ReceiptDeliverySucceededEvent.class, receiptOp) == 1);
        assertThat(admin.level(TENANT, new Sku("AX-1")).reserved()).isEqualTo(4);
        assertThat(seenByHook).contains(reserve);
    }

    @Test
    void aUnitOfWorkThatFailsAfterTheHandlerLeavesNoWriteAndNoResultThenTheRetryDoesItOnce() {
        admin.seed(TENANT, "AX-2", 10);
        CheckoutId id = new CheckoutId("chk-ax-2");
        OperationId reserveOp = OperationId.of(id, Step.RESERVE_STOCK);
        crashOnce.add(id.value());

        axon.eventGateway().publish(new StockReservationRequestedEvent(id, TENANT,
                List.of(new LineItem(new Sku("AX-2"), 3)), lease(id, Step.RESERVE_STOCK, 1)));

        await().atMost(30, TimeUnit.SECONDS).until(() -> stored(StockReservationSucceededEvent.class, reserveOp) == 1);
        assertThat(crashOnce).doesNotContain(id.value());
        assertThat(stored(StockReservationSucceededEvent.class, reserveOp)).isEqualTo(1);
        assertThat(admin.level(TENANT, new Sku("AX-2")).reserved()).isEqualTo(3);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM inventory_reservation_lines WHERE operation_id = ?",
                Integer.class, reserveOp.value())).isEqualTo(1);
    }

    @Test
    void unknownSkusAreAnsweredOverTheQueryBus() throws Exception {
        admin.seed(TENANT, "AX-3", 1);
        UnknownSkus answer = axon.queryGateway().query(new FindUnknownSkusQuery(TENANT,
                List.of(new Sku("AX-3"), new Sku("AX-NOPE"))), UnknownSkus.class).get(10, TimeUnit.SECONDS);
        assertThat(answer.skus()).containsExactly(new Sku("AX-NOPE"));
    }
}
