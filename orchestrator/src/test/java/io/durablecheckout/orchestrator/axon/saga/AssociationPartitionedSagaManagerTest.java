package io.durablecheckout.orchestrator.axon.saga;

import io.durablecheckout.orchestrator.config.ScratchDatabase;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.common.jdbc.UnitOfWorkAwareConnectionProviderWrapper;
import org.axonframework.common.transaction.TransactionManager;
import org.axonframework.eventhandling.EventMessage;
import org.axonframework.eventhandling.GenericEventMessage;
import org.axonframework.eventhandling.PropagatingErrorHandler;
import org.axonframework.eventhandling.Segment;
import org.axonframework.messaging.unitofwork.DefaultUnitOfWork;
import org.axonframework.modelling.saga.AbstractSagaManager;
import org.axonframework.modelling.saga.AnnotatedSagaManager;
import org.axonframework.modelling.saga.AssociationValue;
import org.axonframework.modelling.saga.SagaEventHandler;
import org.axonframework.modelling.saga.StartSaga;
import org.axonframework.modelling.saga.repository.AnnotatedSagaRepository;
import org.axonframework.modelling.saga.repository.SagaStore;
import org.axonframework.modelling.saga.repository.jdbc.JdbcSagaStore;
import org.axonframework.modelling.saga.repository.jdbc.PostgresSagaSqlSchema;
import org.axonframework.serialization.json.JacksonSerializer;
import org.axonframework.spring.jdbc.SpringDataSourceConnectionProvider;
import org.axonframework.spring.messaging.unitofwork.SpringTransactionManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The saga partitioned by association value (issue 48), on a real PostgreSQL saga store: of four segments, only the
 * one the checkout's value falls in handles its events, so an event costs one association lookup, not four (Axon's
 * own manager: four); sagas start in that segment and are found there, including one stored before the split under
 * an id that falls in another segment.
 */
class AssociationPartitionedSagaManagerTest {

    static ScratchDatabase database;
    static TransactionManager transactions;
    static SagaStore<Object> store;
    static final AtomicInteger lookups = new AtomicInteger();
    static final List<Segment> FOUR = List.of(Segment.ROOT_SEGMENT.split()[0].split()[0],
            Segment.ROOT_SEGMENT.split()[0].split()[1], Segment.ROOT_SEGMENT.split()[1].split()[0],
            Segment.ROOT_SEGMENT.split()[1].split()[1]);

    public record Started(String id) {
    }

    public record Happened(String id) {
    }

    /** The shape of the checkout's saga: one association value per event. */
    public static class CountingSaga {
        public int seen;

        @StartSaga
        @SagaEventHandler(associationProperty = "id")
        public void on(Started event) {
            seen++;
        }

        @SagaEventHandler(associationProperty = "id")
        public void on(Happened event) {
            seen++;
        }
    }

    @BeforeAll
    static void database() throws Exception {
        database = ScratchDatabase.start("saga-partition", "/db/migration/core/V1__axon_event_store_tokens_sagas.sql");
        transactions = new SpringTransactionManager(new DataSourceTransactionManager(database.dataSource()));
        ConnectionProvider connections = new UnitOfWorkAwareConnectionProviderWrapper(
                new SpringDataSourceConnectionProvider(database.dataSource()));
        JdbcSagaStore real = JdbcSagaStore.builder().connectionProvider(connections)
                .sqlSchema(new PostgresSagaSqlSchema()).serializer(JacksonSerializer.defaultSerializer()).build();
        store = new CountingStore(real);
    }

    @AfterAll
    static void stop() throws Exception {
        database.close();
    }

    @Test
    void onlyTheSegmentOfTheAssociationValueHandlesAnEvent() {
        AbstractSagaManager<CountingSaga> manager = partitioned();
        for (int i = 0; i < 200; i++) {
            EventMessage<?> event = GenericEventMessage.asEventMessage(new Happened("co-" + i));
            AssociationValue value = new AssociationValue("id", "co-" + i);
            assertThat(FOUR.stream().filter(s -> manager.canHandle(event, s)).toList())
                    .as("co-%d", i).containsExactly(FOUR.stream().filter(s -> s.matches(value)).findFirst().orElseThrow());
        }
    }

    @Test
    void anEventCostsOneLookupNotOnePerSegment() {
        String id = "co-lookups";
        deliver(partitioned(), new Started(id));
        deliver(partitioned(), new Happened(id));
        lookups.set(0);
        deliver(partitioned(), new Happened(id));
        assertThat(lookups).as("the owning segment's lookup only").hasValue(1);
        assertThat(seen(id)).as("one saga, started once, then two events").isEqualTo(3);

        lookups.set(0);
        deliver(axons(), new Happened(id));
        assertThat(lookups).as("Axon's own manager: every segment looks the association up").hasValue(4);
    }

    @Test
    void aSagaStoredUnderAnIdOfAnotherSegmentIsFoundByItsAssociationsSegment() {
        String id = "co-before-the-split";
        AssociationValue value = new AssociationValue("id", id);
        Segment owner = FOUR.stream().filter(s -> s.matches(value)).findFirst().orElseThrow();
        String sagaId = "saga-0";
        for (int i = 1; owner.matches(sagaId); i++) {
            sagaId = "saga-" + i; // an id Axon's manager would have left to another segment
        }
        CountingSaga saga = new CountingSaga();
        String stored = sagaId;
        inUnitOfWork(() -> store.insertSaga(CountingSaga.class, stored, saga, Set.of(value)));

        deliver(partitioned(), new Happened(id));
        assertThat(store.findSagas(CountingSaga.class, value)).as("not a second saga").containsExactly(stored);
        assertThat(seen(id)).as("the stored saga handled it").isEqualTo(1);
    }

    /**
     * Decision 137: a live split or merge changes the segments under stored sagas. Sagas started on one segment are
     * each found by exactly one of the two halves after Axon's split of it, and by the one segment after the halves
     * are merged back: the owner follows the checkout's value and the mask, whatever the segment the saga started in.
     */
    @Test
    void aSagaIsStillMatchedAfterASplitAndAfterAMerge() {
        List<Segment> one = List.of(Segment.ROOT_SEGMENT);
        List<Segment> halves = List.of(Segment.ROOT_SEGMENT.split());
        List<Segment> mergedBack = List.of(halves.get(0).mergedWith(halves.get(1)));
        List<Segment> quarters = List.of(halves.get(0).split()[0], halves.get(1), halves.get(0).split()[1]);
        AbstractSagaManager<CountingSaga> manager = partitioned();
        for (int i = 0; i < 40; i++) {
            String id = "co-split-" + i;
            deliver(manager, new Started(id), one);
            int seen = 1;
            for (List<Segment> segments : List.of(halves, quarters, mergedBack, one)) {
                EventMessage<?> event = GenericEventMessage.asEventMessage(new Happened(id));
                assertThat(segments.stream().filter(s -> manager.canHandle(event, s)).count())
                        .as("%s: segments handling it among %s", id, segments).isEqualTo(1);
                deliver(manager, new Happened(id), segments);
                assertThat(seen(id)).as("%s on %s: the one saga handled it", id, segments).isEqualTo(++seen);
            }
        }
        assertThat(mergedBack).containsExactly(Segment.ROOT_SEGMENT);
    }

    private static AbstractSagaManager<CountingSaga> partitioned() {
        return new AssociationPartitionedSagaManager<>(builder());
    }

    private static AbstractSagaManager<CountingSaga> axons() {
        return builder().build();
    }

    private static AnnotatedSagaManager.Builder<CountingSaga> builder() {
        return AnnotatedSagaManager.<CountingSaga>builder().sagaType(CountingSaga.class)
                .sagaRepository(AnnotatedSagaRepository.<CountingSaga>builder().sagaType(CountingSaga.class)
                        .sagaStore(store).build())
                .listenerInvocationErrorHandler(PropagatingErrorHandler.instance());
    }

    /** What a processor does with one event: every segment that can handle it handles it. */
    private static void deliver(AbstractSagaManager<CountingSaga> manager, Object payload) {
        deliver(manager, payload, FOUR);
    }

    private static void deliver(AbstractSagaManager<CountingSaga> manager, Object payload, List<Segment> segments) {
        EventMessage<?> event = GenericEventMessage.asEventMessage(payload);
        inUnitOfWork(() -> {
            for (Segment segment : segments) {
                if (manager.canHandle(event, segment)) {
                    try {
                        manager.handle(event, segment);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        });
    }

    private static int seen(String id) {
        Set<String> ids = store.findSagas(CountingSaga.class, new AssociationValue("id", id));
        assertThat(ids).hasSize(1);
        return ((CountingSaga) store.loadSaga(CountingSaga.class, ids.iterator().next()).saga()).seen;
    }

    private static void inUnitOfWork(Runnable work) {
        DefaultUnitOfWork<?> unitOfWork = DefaultUnitOfWork.startAndGet(null);
        unitOfWork.attachTransaction(transactions);
        try {
            work.run();
            unitOfWork.commit();
        } catch (RuntimeException e) {
            unitOfWork.rollback(e);
            throw e;
        }
    }

    /** The real store, counting association lookups. */
    private record CountingStore(SagaStore<Object> delegate) implements SagaStore<Object> {
        @Override
        public Set<String> findSagas(Class<?> sagaType, AssociationValue associationValue) {
            lookups.incrementAndGet();
            return delegate.findSagas(sagaType, associationValue);
        }

        @Override
        public <S> Entry<S> loadSaga(Class<S> sagaType, String sagaIdentifier) {
            return delegate.loadSaga(sagaType, sagaIdentifier);
        }

        @Override
        public void deleteSaga(Class<?> sagaType, String sagaIdentifier, Set<AssociationValue> associationValues) {
            delegate.deleteSaga(sagaType, sagaIdentifier, associationValues);
        }

        @Override
        public void insertSaga(Class<?> sagaType, String sagaIdentifier, Object saga,
                               Set<AssociationValue> associationValues) {
            delegate.insertSaga(sagaType, sagaIdentifier, saga, associationValues);
        }

        @Override
        public void updateSaga(Class<?> sagaType, String sagaIdentifier, Object saga,
                               org.axonframework.modelling.saga.AssociationValues associationValues) {
            delegate.updateSaga(sagaType, sagaIdentifier, saga, associationValues);
        }
    }
}
