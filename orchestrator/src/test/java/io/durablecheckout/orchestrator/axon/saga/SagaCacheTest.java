package io.durablecheckout.orchestrator.axon.saga;

import io.durablecheckout.orchestrator.config.EventProcessingConfiguration;
import io.durablecheckout.orchestrator.config.ScratchDatabase;

import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.common.jdbc.UnitOfWorkAwareConnectionProviderWrapper;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.eventhandling.tokenstore.TokenStore;
import org.axonframework.eventhandling.tokenstore.jdbc.JdbcTokenStore;
import org.axonframework.eventhandling.tokenstore.jdbc.TokenSchema;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.modelling.saga.AssociationValue;
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

import java.util.Set;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Decision 79, on real PostgreSQL: the saga store answers a lookup it answered before from memory, and forgets
 * whenever that could be wrong: this node's claims on the saga's segments changed (another node may have handled the
 * sagas meanwhile), or a unit of work rolled back. Two "nodes" are two stores with their own caches and token stores
 * on one database; the mutant, a node whose claim changes do not reach its cache, routes to a saga another node
 * ended: the hazard the watch exists for.
 */
class SagaCacheTest {

    static final String SAGA = EventProcessingConfiguration.SAGA_PROCESSOR;

    static ScratchDatabase database;
    static JdbcTemplate jdbc;
    static TransactionManager transactions;
    static ConnectionProvider connections;
    static Serializer serializer = JacksonSerializer.defaultSerializer();

    @BeforeAll
    static void database() throws Exception {
        database = ScratchDatabase.start("saga-cache", "/db/migration/core/V1__axon_event_store_tokens_sagas.sql");
        PGSimpleDataSource dataSource = database.dataSource();
        jdbc = new JdbcTemplate(dataSource);
        transactions = new SpringTransactionManager(new DataSourceTransactionManager(dataSource));
        connections = new UnitOfWorkAwareConnectionProviderWrapper(new SpringDataSourceConnectionProvider(dataSource));
        tokens("setup").initializeTokenSegments(SAGA, 1);
    }

    @AfterAll
    static void stop() throws Exception {
        database.close();
    }

    static ChangedOnlySagaStore node() {
        return new ChangedOnlySagaStore(JdbcSagaStore.builder().connectionProvider(connections)
                .sqlSchema(new PostgresSagaSqlSchema()).serializer(serializer).build(), serializer, connections, 64);
    }

    static TokenStore tokens(String owner) {
        return JdbcTokenStore.builder().connectionProvider(connections).serializer(serializer)
                .schema(new TokenSchema()).contentType(byte[].class).nodeId(owner)
                .claimTimeout(java.time.Duration.ofMillis(1)).build();
    }

    @Test
    void aLookupAnsweredBeforeIsAnsweredFromMemory() {
        ChangedOnlySagaStore a = node();
        insert(a, "s-1", "co_1");
        assertThat(lookup(a, "co_1")).as("the insert, cached once committed").containsExactly("s-1");
        jdbc.update("DELETE FROM associationvalueentry WHERE sagaid = 's-1'"); // behind every node's back
        assertThat(lookup(a, "co_1")).as("no statement: the store no longer has it").containsExactly("s-1");
        assertThat(inTransaction(() -> a.loadSaga(ChangedOnlySagaStoreTest.Relay.class, "s-1")))
                .as("the saga the cached lookup found").isNotNull();
    }

    @Test
    void aClaimOfTheSagasSegmentForgetsWhatAnotherNodeMayHaveChanged() {
        ChangedOnlySagaStore a = node();
        ChangedOnlySagaStore b = node();
        TokenStore aTokens = new ClaimWatchingTokenStore(tokens("node-a"), SAGA, a::forgetCached);
        insert(a, "s-2", "co_2");
        assertThat(lookup(a, "co_2")).containsExactly("s-2");

        // the segment moved to B, which ended the saga; then A claims it again
        assertThat(lookup(b, "co_2")).containsExactly("s-2");
        inTransaction(() -> b.deleteSaga(ChangedOnlySagaStoreTest.Relay.class, "s-2", Set.of(association("co_2"))));
        inTransaction(() -> aTokens.fetchToken(SAGA, 0));

        assertThat(lookup(a, "co_2")).as("read from the store again").isEmpty();
        assertThat(a.cachedAssociations()).isEqualTo(1); // the fresh answer, cached again
    }

    @Test
    void mutantANodeWhoseClaimsDoNotReachItsCacheRoutesToASagaAnotherNodeEnded() {
        ChangedOnlySagaStore a = node();
        ChangedOnlySagaStore b = node();
        TokenStore aTokens = new ClaimWatchingTokenStore(tokens("node-a"), SAGA, () -> { }); // the mutant: forgets nothing
        insert(a, "s-3", "co_3");
        assertThat(lookup(a, "co_3")).containsExactly("s-3");
        inTransaction(() -> b.deleteSaga(ChangedOnlySagaStoreTest.Relay.class, "s-3", Set.of(association("co_3"))));
        inTransaction(() -> aTokens.fetchToken(SAGA, 0));

        assertThat(lookup(a, "co_3")).as("a saga that no longer exists").containsExactly("s-3");
    }

    @Test
    void aClaimOfAnotherProcessorKeepsTheCache() {
        ChangedOnlySagaStore a = node();
        tokens("setup").initializeTokenSegments("inventory", 1);
        TokenStore aTokens = new ClaimWatchingTokenStore(tokens("node-a"), SAGA, a::forgetCached);
        insert(a, "s-4", "co_4");
        assertThat(lookup(a, "co_4")).containsExactly("s-4");
        inTransaction(() -> aTokens.fetchToken("inventory", 0));
        assertThat(a.cachedAssociations()).isEqualTo(1);
    }

    @Test
    void aRolledBackUnitOfWorkLeavesNothingOfItsOwnAndForgetsTheRest() {
        ChangedOnlySagaStore a = node();
        insert(a, "s-5", "co_5");
        assertThat(lookup(a, "co_5")).containsExactly("s-5");

        DefaultUnitOfWork<?> unitOfWork = DefaultUnitOfWork.startAndGet(null);
        unitOfWork.attachTransaction(transactions);
        a.findSagas(ChangedOnlySagaStoreTest.Relay.class, association("co_6"));
        a.insertSaga(ChangedOnlySagaStoreTest.Relay.class, "s-6", relay("co_6"), Set.of(association("co_6")));
        unitOfWork.rollback(new IllegalStateException("the token update failed: the claim was lost"));

        assertThat(a.cachedAssociations()).as("emptied").isZero();
        assertThat(lookup(a, "co_6")).as("the rolled-back insert").isEmpty();
        assertThat(lookup(a, "co_5")).containsExactly("s-5");
    }

    @Test
    void withoutACacheEveryLookupReadsTheStore() {
        ChangedOnlySagaStore uncached = new ChangedOnlySagaStore(JdbcSagaStore.builder().connectionProvider(connections)
                .sqlSchema(new PostgresSagaSqlSchema()).serializer(serializer).build(), serializer, connections, 0);
        insert(uncached, "s-7", "co_7");
        assertThat(lookup(uncached, "co_7")).containsExactly("s-7");
        jdbc.update("DELETE FROM associationvalueentry WHERE sagaid = 's-7'");
        assertThat(lookup(uncached, "co_7")).isEmpty();
        assertThat(uncached.cachedAssociations()).isZero();
        assertThatThrownBy(() -> inTransaction(() -> {
            throw new IllegalStateException("nothing to forget");
        })).hasMessageContaining("nothing to forget");
    }

    private static ChangedOnlySagaStoreTest.Relay relay(String checkoutId) {
        ChangedOnlySagaStoreTest.Relay saga = new ChangedOnlySagaStoreTest.Relay();
        saga.checkoutId = checkoutId;
        return saga;
    }

    private static void insert(ChangedOnlySagaStore store, String sagaId, String checkoutId) {
        inTransaction(() -> {
            store.findSagas(ChangedOnlySagaStoreTest.Relay.class, association(checkoutId)); // Axon looks first
            store.insertSaga(ChangedOnlySagaStoreTest.Relay.class, sagaId, relay(checkoutId),
                    Set.of(association(checkoutId)));
            return null;
        });
    }

    private static Set<String> lookup(ChangedOnlySagaStore store, String checkoutId) {
        return inTransaction(() -> store.findSagas(ChangedOnlySagaStoreTest.Relay.class, association(checkoutId)));
    }

    private static AssociationValue association(String checkoutId) {
        return new AssociationValue("checkoutId", checkoutId);
    }

    private static void inTransaction(Runnable work) {
        inTransaction(() -> {
            work.run();
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
