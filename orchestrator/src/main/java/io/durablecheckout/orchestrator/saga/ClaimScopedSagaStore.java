package io.durablecheckout.orchestrator.saga;

import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.modelling.saga.AssociationValue;
import org.axonframework.modelling.saga.AssociationValues;
import org.axonframework.modelling.saga.repository.SagaStore;
import org.axonframework.serialization.SerializedObject;
import org.axonframework.serialization.Serializer;

import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The saga store as the holder of the saga processor's segment sees it (decision 53). Only that holder reads or
 * writes sagas (the saga has no deadlines; decision 1), so while it keeps its claim its own committed writes are
 * the whole truth: association lookups and loads are answered from memory, and an update that changes nothing
 * (the saga only routes; its state is set when it starts) is not written.
 * <p>
 * What keeps it honest:
 * <ul>
 *   <li>{@link #onClaim} empties it whenever this node claims a segment of the saga processor (the token store tells it):
 *   another node may have owned the segment meanwhile and changed sagas.</li>
 *   <li>The cache changes only after the database transaction commits; a rollback after any write empties it.</li>
 *   <li>Sagas are kept serialized, so a handler that changes a saga in a unit of work that then rolls back cannot
 *   leave its change behind in memory.</li>
 *   <li>One lock and a generation count: a database read is cached only if no change or invalidation happened while
 *   it ran (the non-atomic get, load, put of Axon's caches lost saga events, DESIGN.md).</li>
 *   <li>Bounded: least recently used out; a miss goes to the database.</li>
 * </ul>
 * A node that lost its claim without knowing (paused) may still run a batch on what it cached; its token write then
 * fails and the batch rolls back, as it did without the cache.
 */
public final class ClaimScopedSagaStore implements SagaStore<Object> {

    private record Stored(SerializedObject<byte[]> state, Set<AssociationValue> associations) {
    }

    private final SagaStore<Object> delegate;
    private final Serializer serializer;
    private final Object lock = new Object();
    private final Map<String, Set<String>> sagasByAssociation; // guarded by lock
    private final Map<String, Stored> sagas; // guarded by lock
    private long generation; // guarded by lock

    public ClaimScopedSagaStore(SagaStore<Object> delegate, Serializer serializer, int maxEntries) {
        this.delegate = delegate;
        this.serializer = serializer;
        this.sagasByAssociation = lru(maxEntries);
        this.sagas = lru(maxEntries);
    }

    private static <V> Map<String, V> lru(int maxEntries) {
        return new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > maxEntries;
            }
        };
    }

    public SagaStore<Object> delegate() {
        return delegate;
    }

    /** For the token store: when this node claims a segment of the saga processor, forget everything. */
    public void onClaim(String processorName) {
        if (CheckoutSaga.PROCESSOR.equals(processorName)) {
            invalidate();
        }
    }

    private void invalidate() {
        synchronized (lock) {
            generation++;
            sagas.clear();
            sagasByAssociation.clear();
        }
    }

    @Override
    public Set<String> findSagas(Class<?> sagaType, AssociationValue associationValue) {
        String key = key(sagaType, associationValue);
        long seen;
        synchronized (lock) {
            Set<String> cached = sagasByAssociation.get(key);
            if (cached != null) {
                return new HashSet<>(cached);
            }
            seen = generation;
        }
        Set<String> found = delegate.findSagas(sagaType, associationValue);
        synchronized (lock) {
            if (generation == seen) {
                sagasByAssociation.put(key, new HashSet<>(found));
            }
        }
        return found;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <S> Entry<S> loadSaga(Class<S> sagaType, String sagaIdentifier) {
        long seen;
        synchronized (lock) {
            Stored stored = sagas.get(sagaIdentifier);
            if (stored != null) {
                return entry((S) serializer.deserialize(stored.state()), stored.associations());
            }
            seen = generation;
        }
        Entry<S> loaded = delegate.loadSaga(sagaType, sagaIdentifier);
        if (loaded != null) {
            Stored stored = new Stored(serialize(loaded.saga()), Set.copyOf(loaded.associationValues()));
            synchronized (lock) {
                if (generation == seen) {
                    sagas.put(sagaIdentifier, stored);
                }
            }
        }
        return loaded;
    }

    @Override
    public void insertSaga(Class<?> sagaType, String sagaIdentifier, Object saga,
                           Set<AssociationValue> associationValues) {
        delegate.insertSaga(sagaType, sagaIdentifier, saga, associationValues);
        Stored stored = new Stored(serialize(saga), Set.copyOf(associationValues));
        afterCommit(() -> {
            sagas.put(sagaIdentifier, stored);
            associationValues.forEach(av -> addAssociation(sagaType, av, sagaIdentifier));
        });
    }

    @Override
    public void updateSaga(Class<?> sagaType, String sagaIdentifier, Object saga,
                           AssociationValues associationValues) {
        SerializedObject<byte[]> state = serialize(saga);
        boolean associationsChanged = !associationValues.addedAssociations().isEmpty()
                || !associationValues.removedAssociations().isEmpty();
        synchronized (lock) {
            Stored cached = sagas.get(sagaIdentifier);
            if (!associationsChanged && cached != null && sameState(cached.state(), state)) {
                return; // the row already holds exactly this
            }
        }
        delegate.updateSaga(sagaType, sagaIdentifier, saga, associationValues);
        Stored stored = new Stored(state, Set.copyOf(associationValues.asSet()));
        Set<AssociationValue> removed = Set.copyOf(associationValues.removedAssociations());
        Set<AssociationValue> added = Set.copyOf(associationValues.addedAssociations());
        afterCommit(() -> {
            sagas.put(sagaIdentifier, stored);
            removed.forEach(av -> removeAssociation(sagaType, av, sagaIdentifier));
            added.forEach(av -> addAssociation(sagaType, av, sagaIdentifier));
        });
    }

    @Override
    public void deleteSaga(Class<?> sagaType, String sagaIdentifier, Set<AssociationValue> associationValues) {
        delegate.deleteSaga(sagaType, sagaIdentifier, associationValues);
        Set<AssociationValue> removed = Set.copyOf(associationValues);
        afterCommit(() -> {
            sagas.remove(sagaIdentifier);
            removed.forEach(av -> removeAssociation(sagaType, av, sagaIdentifier));
        });
    }

    /** Runs the cache change (under the lock) once the transaction has committed; a rollback empties the cache. */
    private void afterCommit(Runnable change) {
        Runnable locked = () -> {
            synchronized (lock) {
                generation++;
                change.run();
            }
        };
        if (CurrentUnitOfWork.isStarted()) {
            CurrentUnitOfWork.get().root().afterCommit(u -> locked.run());
            CurrentUnitOfWork.get().root().onRollback(u -> invalidate());
        } else {
            locked.run();
        }
    }

    private void addAssociation(Class<?> sagaType, AssociationValue av, String sagaIdentifier) {
        // absent means "not known here": the next lookup reads the committed rows
        sagasByAssociation.computeIfPresent(key(sagaType, av), (k, ids) -> {
            ids.add(sagaIdentifier);
            return ids;
        });
    }

    private void removeAssociation(Class<?> sagaType, AssociationValue av, String sagaIdentifier) {
        sagasByAssociation.computeIfPresent(key(sagaType, av), (k, ids) -> {
            ids.remove(sagaIdentifier);
            return ids;
        });
    }

    private SerializedObject<byte[]> serialize(Object saga) {
        return serializer.serialize(saga, byte[].class);
    }

    private static boolean sameState(SerializedObject<byte[]> a, SerializedObject<byte[]> b) {
        return a.getType().equals(b.getType()) && Arrays.equals(a.getData(), b.getData());
    }

    private static String key(Class<?> sagaType, AssociationValue av) {
        return sagaType.getName() + '/' + av.getKey() + '=' + av.getValue();
    }

    private static <S> Entry<S> entry(S saga, Set<AssociationValue> associations) {
        return new Entry<>() {
            @Override
            public Set<AssociationValue> associationValues() {
                return new HashSet<>(associations); // the repository may change the set it is given
            }

            @Override
            public S saga() {
                return saga;
            }
        };
    }
}
