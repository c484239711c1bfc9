package io.durablecheckout.orchestrator.saga;

import io.durablecheckout.orchestrator.cluster.ClaimObservingTokenStore;
import io.durablecheckout.orchestrator.config.EmbeddedPostgresServer;
import io.durablecheckout.orchestrator.serialization.AxonJson;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.common.jdbc.UnitOfWorkAwareConnectionProviderWrapper;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.eventhandling.GlobalSequenceTrackingToken;
import org.axonframework.eventhandling.Segment;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.eventhandling.tokenstore.jdbc.JdbcTokenStore;
import org.axonframework.eventhandling.tokenstore.jdbc.TokenSchema;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.modelling.saga.AssociationValue;
import org.axonframework.modelling.saga.AssociationValuesImpl;
import org.axonframework.modelling.saga.repository.jdbc.JdbcSagaStore;
import org.axonframework.modelling.saga.repository.jdbc.PostgresSagaSqlSchema;
import org.axonframework.serialization.Serializer;
import org.axonframework.serialization.json.JacksonSerializer;
import org.axonframework.spring.jdbc.SpringDataSourceConnectionProvider;
import org.axonframework.spring.messaging.unitofwork.SpringTransactionManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decision 53: the saga segment moves from node A to node B and back. B changes a saga's state and ends another;
 * A, holding the segment again, must see both, not what it cached before it lost the segment. Two stores, two token
 * stores with their own node ids, one real PostgreSQL.
 */
class ClaimScopedSagaStoreTest {

    static EmbeddedPostgresServer postgres;
    static PGSimpleDataSource dataSource;
    static TransactionManager transactions;
    static ConnectionProvider connections;
    static final Serializer SERIALIZER = JacksonSerializer.builder().objectMapper(AxonJson.objectMapper()).build();
    static final String PROCESSOR = CheckoutSaga.PROCESSOR;
    static final Segment SEGMENT = Segment.ROOT_SEGMENT;

    /** A saga's state as the store sees it: serialized fields. */
    public static class RoutingState {
        public String checkoutId;
        public boolean cancellationRequested;

        public RoutingState() {
        }

        RoutingState(String checkoutId, boolean cancellationRequested) {
            this.checkoutId = checkoutId;
            this.cancellationRequested = cancellationRequested;
        }
    }

    @BeforeAll
    static void database() throws Exception {
        Path target = Path.of("target");
        Files.createDirectories(target);
        postgres = EmbeddedPostgresServer.start(Files.createTempDirectory(target.toAbsolutePath(), "saga-cache-pg-"), 0);
        dataSource = new PGSimpleDataSource();
        dataSource.setUrl(postgres.jdbcUrl());
        dataSource.setUser("postgres");
        try (var in = ClaimScopedSagaStoreTest.class.getResourceAsStream(
                "/db/migration/core/V1__axon_event_store_tokens_sagas.sql")) {
            new JdbcTemplate(dataSource).execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        transactions = new SpringTransactionManager(new DataSourceTransactionManager(dataSource));
        connections = new UnitOfWorkAwareConnectionProviderWrapper(new SpringDataSourceConnectionProvider(dataSource));
        JdbcTokenStore setup = tokenStore("setup");
        inTransaction(() -> {
            setup.initializeTokenSegments(PROCESSOR, 1, new GlobalSequenceTrackingToken(0));
            return null;
        });
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
    }

    @Test
    void aNodeThatGetsTheSagaSegmentBackDoesNotActOnWhatItCachedBefore() {
        ClaimScopedSagaStore storeA = sagaStore();
        ClaimScopedSagaStore storeB = sagaStore();
        TokenStore tokensA = new ClaimObservingTokenStore(tokenStore("node-a"), storeA::onClaim);
        TokenStore tokensB = new ClaimObservingTokenStore(tokenStore("node-b"), storeB::onClaim);
        AssociationValue c1 = new AssociationValue(CheckoutSaga.ASSOCIATION, "c-1");
        AssociationValue c2 = new AssociationValue(CheckoutSaga.ASSOCIATION, "c-2");

        // A holds the segment, starts two sagas and has both in memory
        claim(tokensA);
        inTransaction(() -> {
            storeA.insertSaga(RoutingState.class, "s-1", new RoutingState("c-1", false), Set.of(c1));
            storeA.insertSaga(RoutingState.class, "s-2", new RoutingState("c-2", false), Set.of(c2));
            return null;
        });
        assertThat(inTransaction(() -> storeA.findSagas(RoutingState.class, c2))).containsExactly("s-2");
        assertThat(inTransaction(() -> storeA.loadSaga(RoutingState.class, "s-1").saga().cancellationRequested))
                .isFalse();
        release(tokensA);

        // B takes the segment: a cancellation is requested on c-1, and c-2's saga ends
        claim(tokensB);
        inTransaction(() -> {
            RoutingState s1 = storeB.loadSaga(RoutingState.class, "s-1").saga();
            s1.cancellationRequested = true;
            storeB.updateSaga(RoutingState.class, "s-1", s1, new AssociationValuesImpl(Set.of(c1)));
            assertThat(storeB.findSagas(RoutingState.class, c2)).containsExactly("s-2");
            storeB.deleteSaga(RoutingState.class, "s-2", Set.of(c2));
            return null;
        });
        release(tokensB);

        // A gets the segment back: it must see B's work
        claim(tokensA);
        assertThat(inTransaction(() -> storeA.loadSaga(RoutingState.class, "s-1").saga().cancellationRequested))
                .as("saga state changed by the other node").isTrue();
        assertThat(inTransaction(() -> storeA.findSagas(RoutingState.class, c2)))
                .as("saga ended by the other node").isEmpty();
    }

    @Test
    void anUnchangedSagaIsNotWrittenAndARolledBackChangeIsNotRemembered() {
        ClaimScopedSagaStore store = sagaStore();
        AssociationValue c3 = new AssociationValue(CheckoutSaga.ASSOCIATION, "c-3");
        inTransaction(() -> {
            store.insertSaga(RoutingState.class, "s-3", new RoutingState("c-3", false), Set.of(c3));
            return null;
        });
        DefaultUnitOfWork<?> failing = DefaultUnitOfWork.startAndGet(null);
        failing.attachTransaction(transactions);
        RoutingState changed = store.loadSaga(RoutingState.class, "s-3").saga();
        changed.cancellationRequested = true;
        store.updateSaga(RoutingState.class, "s-3", changed, new AssociationValuesImpl(Set.of(c3)));
        failing.rollback(new IllegalStateException("the batch failed"));

        assertThat(inTransaction(() -> store.loadSaga(RoutingState.class, "s-3").saga().cancellationRequested))
                .as("the rolled-back change").isFalse();
        assertThat(new JdbcTemplate(dataSource).queryForObject(
                "SELECT count(*) FROM sagaentry WHERE sagaid = 's-3'", Long.class)).isEqualTo(1);
    }

    private static ClaimScopedSagaStore sagaStore() {
        JdbcSagaStore jdbc = JdbcSagaStore.builder().connectionProvider(connections)
                .sqlSchema(new PostgresSagaSqlSchema()).serializer(SERIALIZER).build();
        @SuppressWarnings({"unchecked", "rawtypes"})
        ClaimScopedSagaStore store = new ClaimScopedSagaStore((org.axonframework.modelling.saga.repository.SagaStore) jdbc,
                SERIALIZER, 100);
        return store;
    }

    private static JdbcTokenStore tokenStore(String node) {
        return JdbcTokenStore.builder().connectionProvider(connections).serializer(SERIALIZER)
                .schema(new TokenSchema()).contentType(byte[].class).nodeId(node)
                .claimTimeout(Duration.ofSeconds(10)).build();
    }

    private static void claim(TokenStore tokens) {
        inTransaction(() -> tokens.fetchToken(PROCESSOR, SEGMENT)); // as the pooled processor's coordinator claims
    }

    private static void release(TokenStore tokens) {
        inTransaction(() -> {
            tokens.releaseClaim(PROCESSOR, SEGMENT.getSegmentId());
            return null;
        });
    }

    private static <R> R inTransaction(Supplier<R> work) {
        DefaultUnitOfWork<?> unitOfWork = DefaultUnitOfWork.startAndGet(null);
        unitOfWork.attachTransaction(transactions);
        try {
            R result = work.get();
            unitOfWork.commit();
            return result;
        } catch (RuntimeException e) {
            unitOfWork.rollback(e);
            throw e;
        }
    }
}
