package io.durablecheckout.orchestrator.axon.saga;

import io.durablecheckout.orchestrator.config.ScratchDatabase;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.common.jdbc.UnitOfWorkAwareConnectionProviderWrapper;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.eventhandling.GenericDomainEventMessage;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.modelling.saga.AssociationValue;
import org.axonframework.modelling.saga.AssociationValuesImpl;
import org.axonframework.modelling.saga.repository.SagaStore;
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
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decision 60, on real PostgreSQL: a saga its handler left unchanged is not written again (its row keeps its
 * version, {@code xmin}); a changed saga, or one whose associations changed, is written as before.
 */
class ChangedOnlySagaStoreTest {

    static ScratchDatabase database;
    static TransactionManager transactions;
    static JdbcTemplate jdbc;
    static SagaStore<Object> store;
    static SagaStore<Object> lookupStore;
    static ConnectionProvider connections;
    static Serializer serializer;

    public static class Relay {
        public String checkoutId;
        public boolean cancellationRequested;
    }

    @BeforeAll
    static void database() throws Exception {
        database = ScratchDatabase.start("saga-store", "/db/migration/core/V1__axon_event_store_tokens_sagas.sql");
        PGSimpleDataSource dataSource = database.dataSource();
        jdbc = new JdbcTemplate(dataSource);
        transactions = new SpringTransactionManager(new DataSourceTransactionManager(dataSource));
        connections = new UnitOfWorkAwareConnectionProviderWrapper(new SpringDataSourceConnectionProvider(dataSource));
        serializer = JacksonSerializer.defaultSerializer();
        store = new ChangedOnlySagaStore(JdbcSagaStore.builder().connectionProvider(connections)
                .sqlSchema(new PostgresSagaSqlSchema()).serializer(serializer).build(), serializer);
        lookupStore = new ChangedOnlySagaStore(JdbcSagaStore.builder().connectionProvider(connections)
                .sqlSchema(new PostgresSagaSqlSchema()).serializer(serializer).build(), serializer, connections);
    }

    @Test
    void aLookupLoadsWhatItFindsInTheSameStatementAndTheLoadThatFollowsReadsNothingMore() {
        insert("s-4", "co_4");
        inTransaction(() -> store.updateSaga(Relay.class, "s-4", relay("co_4", true),
                associations("co_4", new AssociationValue("refundId", "r-4"))));

        inTransaction(() -> {
            assertThat(lookupStore.findSagas(Relay.class, association("co_4"))).containsExactly("s-4");
            // gone from the table after the lookup (another session): the load is served by what the lookup read
            jdbc.update("DELETE FROM sagaentry WHERE sagaid = 's-4'");
            SagaStore.Entry<Relay> entry = lookupStore.loadSaga(Relay.class, "s-4");
            assertThat(entry.saga().checkoutId).isEqualTo("co_4");
            assertThat(entry.saga().cancellationRequested).isTrue();
            assertThat(entry.associationValues()).containsExactlyInAnyOrder(association("co_4"),
                    new AssociationValue("refundId", "r-4"));
            // used once: a second load reads the store (where the row is now gone)
            assertThat(lookupStore.loadSaga(Relay.class, "s-4")).isNull();
        });
    }

    /**
     * Decision 89: while a checkout's first event is handled no saga can be associated with its id yet, so that
     * lookup is not sent; any later event's is.
     */
    @Test
    void theFirstEventOfAnAggregateSendsNoLookup() {
        java.util.concurrent.atomic.AtomicInteger statements = new java.util.concurrent.atomic.AtomicInteger();
        ConnectionProvider counting = () -> {
            java.sql.Connection connection = connections.getConnection();
            return (java.sql.Connection) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[]{java.sql.Connection.class}, (proxy, method, args) -> {
                        if (method.getName().startsWith("prepare")) {
                            statements.incrementAndGet();
                        }
                        try {
                            return method.invoke(connection, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        };
        SagaStore<Object> counted = new ChangedOnlySagaStore(JdbcSagaStore.builder().connectionProvider(counting)
                .sqlSchema(new PostgresSagaSqlSchema()).serializer(serializer).build(), serializer, counting);

        inTransactionOf(new GenericDomainEventMessage<>("Checkout", "co_89", 0, "created"),
                () -> assertThat(counted.findSagas(Relay.class, association("co_89"))).isEmpty());
        assertThat(statements.get()).as("the first event's lookup").isZero();

        insert("s-89", "co_89"); // the saga the first event started
        inTransactionOf(new GenericDomainEventMessage<>("Checkout", "co_89", 1, "next"),
                () -> assertThat(counted.findSagas(Relay.class, association("co_89"))).containsExactly("s-89"));
        inTransactionOf(new GenericDomainEventMessage<>("Checkout", "co_other", 0, "created"),
                () -> assertThat(counted.findSagas(Relay.class, association("co_89"))).containsExactly("s-89"));
        assertThat(statements.get()).as("a later event's lookup, another aggregate's first event").isEqualTo(2);
    }

    @Test
    void aLookupFindsWhatAxonsStoreFindsAndLoadsItTheSame() {
        insert("s-5", "co_5");
        insert("s-6", "co_5");
        jdbc.update("INSERT INTO associationvalueentry (associationkey, associationvalue, sagaid, sagatype)"
                + " SELECT associationkey, associationvalue, 's-orphan', sagatype FROM associationvalueentry"
                + " WHERE sagaid = 's-5'"); // an association whose saga row is gone

        inTransaction(() -> {
            assertThat(lookupStore.findSagas(Relay.class, association("co_5")))
                    .isEqualTo(store.findSagas(Relay.class, association("co_5")))
                    .containsExactly("s-5", "s-6", "s-orphan");
            assertThat(lookupStore.loadSaga(Relay.class, "s-orphan")).isNull();
            SagaStore.Entry<Relay> viaLookup = lookupStore.loadSaga(Relay.class, "s-6");
            SagaStore.Entry<Relay> direct = store.loadSaga(Relay.class, "s-6");
            assertThat(viaLookup.saga()).usingRecursiveComparison().isEqualTo(direct.saga());
            assertThat(viaLookup.associationValues()).isEqualTo(direct.associationValues());
        });
        // outside a unit of work: Axon's own statements
        assertThat(lookupStore.findSagas(Relay.class, association("co_5"))).contains("s-5", "s-6");
    }

    @Test
    void aSagaIsInsertedAndDeletedWithItsAssociationsAsAxonsStoreDoesIt() {
        Relay saga = relay("co_7", false);
        Set<AssociationValue> values = Set.of(association("co_7"), new AssociationValue("refundId", "r-7"));
        inTransaction(() -> lookupStore.insertSaga(Relay.class, "s-7", saga, values));
        inTransaction(() -> store.insertSaga(Relay.class, "s-8", saga, values));

        String rows = "SELECT string_agg(concat_ws('|', associationkey, associationvalue, sagatype), ',' ORDER BY"
                + " associationkey) FROM associationvalueentry WHERE sagaid = ?";
        assertThat(jdbc.queryForObject(rows, String.class, "s-7")).isEqualTo(jdbc.queryForObject(rows, String.class, "s-8"));
        String entry = "SELECT concat_ws('|', revision, sagatype, encode(serializedsaga, 'hex')) FROM sagaentry"
                + " WHERE sagaid = ?";
        assertThat(jdbc.queryForObject(entry, String.class, "s-7")).isEqualTo(jdbc.queryForObject(entry, String.class, "s-8"));
        assertThat(inTransactionGet(() -> lookupStore.loadSaga(Relay.class, "s-7").associationValues()))
                .isEqualTo(values);

        inTransaction(() -> lookupStore.deleteSaga(Relay.class, "s-7", values));
        assertThat(jdbc.queryForObject("SELECT count(*) FROM sagaentry WHERE sagaid = 's-7'", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM associationvalueentry WHERE sagaid = 's-7'", Long.class))
                .isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM associationvalueentry WHERE sagaid = 's-8'", Long.class))
                .isEqualTo(2);
    }

    private static Relay relay(String checkoutId, boolean cancellationRequested) {
        Relay saga = new Relay();
        saga.checkoutId = checkoutId;
        saga.cancellationRequested = cancellationRequested;
        return saga;
    }

    private static AssociationValuesImpl associations(String checkoutId, AssociationValue... more) {
        AssociationValuesImpl values = new AssociationValuesImpl(Set.of(association(checkoutId)));
        for (AssociationValue v : more) {
            values.add(v);
        }
        return values;
    }

    @AfterAll
    static void stop() throws Exception {
        database.close();
    }

    @Test
    void anUnchangedSagaIsNotWrittenAgain() {
        insert("s-1", "co_1");
        long version = rowVersion("s-1");

        inTransaction(() -> {
            Relay saga = store.loadSaga(Relay.class, "s-1").saga();
            store.updateSaga(Relay.class, "s-1", saga, new AssociationValuesImpl(Set.of(association("co_1"))));
        });

        assertThat(rowVersion("s-1")).as("the row was not updated").isEqualTo(version);
    }

    @Test
    void aChangedSagaIsWritten() {
        insert("s-2", "co_2");
        long version = rowVersion("s-2");

        inTransaction(() -> {
            Relay saga = store.loadSaga(Relay.class, "s-2").saga();
            saga.cancellationRequested = true;
            store.updateSaga(Relay.class, "s-2", saga, new AssociationValuesImpl(Set.of(association("co_2"))));
        });

        assertThat(rowVersion("s-2")).isNotEqualTo(version);
        Boolean stored = inTransactionGet(() -> store.loadSaga(Relay.class, "s-2").saga().cancellationRequested);
        assertThat(stored).as("the change is what a later load sees").isTrue();
    }

    @Test
    void aSagaWhoseAssociationsChangedIsWritten() {
        insert("s-3", "co_3");

        inTransaction(() -> {
            Relay saga = store.loadSaga(Relay.class, "s-3").saga();
            AssociationValuesImpl associations = new AssociationValuesImpl(Set.of(association("co_3")));
            associations.add(new AssociationValue("refundId", "r-3"));
            store.updateSaga(Relay.class, "s-3", saga, associations);
        });

        assertThat(store.findSagas(Relay.class, new AssociationValue("refundId", "r-3"))).containsExactly("s-3");
    }

    private static void insert(String sagaId, String checkoutId) {
        Relay saga = new Relay();
        saga.checkoutId = checkoutId;
        inTransaction(() -> store.insertSaga(Relay.class, sagaId, saga, Set.of(association(checkoutId))));
    }

    private static AssociationValue association(String checkoutId) {
        return new AssociationValue("checkoutId", checkoutId);
    }

    private static long rowVersion(String sagaId) {
        return jdbc.queryForObject("SELECT xmin::text::bigint FROM sagaentry WHERE sagaid = ?", Long.class, sagaId);
    }

    private static void inTransaction(Runnable work) {
        inTransactionGet(() -> {
            work.run();
            return null;
        });
    }

    private static void inTransactionOf(org.axonframework.messaging.Message<?> message, Runnable work) {
        DefaultUnitOfWork<?> unitOfWork = DefaultUnitOfWork.startAndGet(message);
        unitOfWork.attachTransaction(transactions);
        try {
            work.run();
            unitOfWork.commit();
        } catch (RuntimeException | AssertionError e) {
            unitOfWork.rollback(e);
            throw e;
        }
    }

    private static <R> R inTransactionGet(java.util.function.Supplier<R> work) {
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
