package io.durablecheckout.orchestrator.axon.saga;

import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.common.jdbc.JdbcUtils;
import org.axonframework.eventhandling.DomainEventMessage;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;
import org.axonframework.modelling.saga.SagaStorageException;
import org.axonframework.serialization.SerializedObject;
import org.axonframework.serialization.SimpleSerializedObject;
import org.axonframework.modelling.saga.AssociationValue;
import org.axonframework.modelling.saga.AssociationValues;
import org.axonframework.modelling.saga.repository.SagaStore;
import org.axonframework.serialization.Serializer;

import javax.annotation.Nonnull;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The JDBC saga store, without the UPDATE of a saga that its handler left as it was loaded. Axon writes every saga
 * it invoked back at commit; the CheckoutSaga's state is set when it starts and its result handlers only send
 * commands, so three of a checkout's saga writes stored the same bytes again. The form a saga had when it was loaded
 * is kept for the current unit of work only (never across transactions: nothing is cached), and at commit a saga
 * whose form and associations are unchanged is not written. The load's row lock ({@code FOR UPDATE}) is held to the
 * end of the transaction either way. docs/decisions.md §60.
 * <p>
 * Given the connection provider, a lookup by association also loads the sagas it finds (one statement instead of
 * three per event), for the loads that follow in the same unit of work only; a saga is inserted and deleted with
 * its associations in one statement each.
 * <p>
 * With a cache ({@code maxCachedAssociations > 0}), a lookup this node answered before is answered again from memory:
 * what a lookup read, and what this node inserted, changed or deleted since, enter the cache only once their
 * transaction committed; any rollback empties it. That is only right while no other node changes these sagas, and a
 * saga is only ever handled by the owner of its segment's claim: the cache is emptied whenever this node claims or
 * releases a segment of the saga's processor ({@link #forgetCached}, called by {@link ClaimWatchingTokenStore}), and a batch
 * that lost its claim without noticing rolls back at its token update (same transaction), emptying it too. A lookup
 * read while another thread of this node committed a saga write is not cached (the write counter moved).
 * docs/decisions.md §79.
 */
public final class ChangedOnlySagaStore implements SagaStore<Object> {

    private static final String LOADED = ChangedOnlySagaStore.class.getName() + ".loaded";
    private static final String FOUND = ChangedOnlySagaStore.class.getName() + ".found";
    private static final String PENDING = ChangedOnlySagaStore.class.getName() + ".pending";

    /**
     * The sagas an association leads to, each with its stored form and all its associations: the lookup and the loads
     * that follow it in one statement (Axon's store runs a lookup, then per saga a load and a read of its
     * associations: three statements per event, about 12 per checkout).
     */
    private static final String FIND_AND_LOAD = "SELECT a.sagaId, s.serializedSaga, s.sagaType, s.revision,"
            + " s.sagaId IS NOT NULL,"
            + " array(SELECT x.associationKey FROM AssociationValueEntry x"
            + " WHERE x.sagaId = a.sagaId AND x.sagaType = a.sagaType ORDER BY x.id),"
            + " array(SELECT x.associationValue FROM AssociationValueEntry x"
            + " WHERE x.sagaId = a.sagaId AND x.sagaType = a.sagaType ORDER BY x.id)"
            + " FROM AssociationValueEntry a LEFT JOIN SagaEntry s ON s.sagaId = a.sagaId"
            + " WHERE a.associationKey = ? AND a.associationValue = ? AND a.sagaType = ?";

    private final SagaStore<Object> delegate;
    private final Serializer serializer;
    private final ConnectionProvider connections;
    /** Association (saga type, key, value) to the sagas it leads to, as committed; null without a cache. */
    private final Map<String, Map<String, Found>> cached;
    /** Moves with every committed write applied and every emptying: a lookup read across a move is not cached. */
    private long generation;

    /** Lookups and loads as the delegate runs them. */
    public ChangedOnlySagaStore(SagaStore<Object> delegate, Serializer serializer) {
        this(delegate, serializer, null, 0);
    }

    public ChangedOnlySagaStore(SagaStore<Object> delegate, Serializer serializer, ConnectionProvider connections) {
        this(delegate, serializer, connections, 0);
    }

    /**
     * @param connections the delegate's (a {@code JdbcSagaStore} on the product's tables): with it, a lookup also
     *                    loads what it found, for the loads that follow it in the same unit of work
     */
    public ChangedOnlySagaStore(SagaStore<Object> delegate, Serializer serializer, ConnectionProvider connections,
                         int maxCachedAssociations) {
        this.delegate = delegate;
        this.serializer = serializer;
        this.connections = connections;
        this.cached = connections == null || maxCachedAssociations <= 0 ? null
                : new LinkedHashMap<>(64, 0.75f, true) {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, Map<String, Found>> eldest) {
                        return size() > maxCachedAssociations;
                    }
                };
    }

    /** Empties the cache: this node's claims on the saga's segments changed, so another node may have written. */
    public void forgetCached() {
        if (cached != null) {
            synchronized (cached) {
                cached.clear();
                generation++;
            }
        }
    }

    /** How many associations the cache holds (for tests and the wiring check). */
    public int cachedAssociations() {
        if (cached == null) return 0;
        synchronized (cached) {
            return cached.size();
        }
    }

    /**
     * What this unit of work read and wrote, applied to the cache once it commits: the reads first (each only if no
     * committed write moved the generation since it was read), then the writes in order.
     */
    private final class Pending {
        final long readAt;
        final Map<String, Map<String, Found>> reads = new HashMap<>();
        final List<Consumer<Map<String, Map<String, Found>>>> writes = new ArrayList<>();

        Pending(long readAt) {
            this.readAt = readAt;
        }

        void apply() {
            synchronized (cached) {
                if (generation == readAt) {
                    cached.putAll(reads);
                }
                if (!writes.isEmpty()) {
                    writes.forEach(w -> w.accept(cached));
                    generation++;
                }
            }
        }
    }

    /** This unit of work's pending cache changes, registered to apply after its commit and to empty on rollback. */
    private Pending pending() {
        return CurrentUnitOfWork.get().root().getOrComputeResource(PENDING, k -> {
            long readAt;
            synchronized (cached) {
                readAt = generation;
            }
            Pending p = new Pending(readAt);
            CurrentUnitOfWork.get().root().afterCommit(u -> p.apply());
            CurrentUnitOfWork.get().root().onRollback(u -> forgetCached());
            return p;
        });
    }

    private String cacheKey(Class<?> sagaType, AssociationValue association) {
        return serializer.typeForClass(sagaType).getName() + '\u0000' + association.getKey() + '\u0000'
                + association.getValue();
    }

    /** After commit: the saga with these associations (its current form), under every one of them; gone elsewhere. */
    private void cacheWrite(Class<?> sagaType, String sagaIdentifier, SimpleSerializedObject<byte[]> form,
                            Set<AssociationValue> current, Set<AssociationValue> removed) {
        if (cached == null || !CurrentUnitOfWork.isStarted()) {
            return;
        }
        Set<AssociationValue> associations = Set.copyOf(current);
        Pending p = pending();
        List<String> keysNow = associations.stream().map(a -> cacheKey(sagaType, a)).toList();
        List<String> keysGone = removed.stream().map(a -> cacheKey(sagaType, a)).toList();
        p.writes.add(cache -> {
            for (String key : keysGone) {
                Map<String, Found> sagas = cache.get(key);
                if (sagas != null) {
                    Map<String, Found> next = new HashMap<>(sagas);
                    next.remove(sagaIdentifier);
                    cache.put(key, Map.copyOf(next));
                }
            }
            for (String key : keysNow) {
                Map<String, Found> sagas = cache.get(key);
                if (sagas == null) {
                    continue; // not cached: the next lookup reads the store
                }
                Map<String, Found> next = new HashMap<>(sagas);
                if (form == null) {
                    next.remove(sagaIdentifier);
                } else {
                    next.put(sagaIdentifier, new Found(form, associations));
                }
                cache.put(key, Map.copyOf(next));
            }
        });
    }


    /** The durable store underneath, for the start-up wiring check. */
    public SagaStore<Object> delegate() {
        return delegate;
    }

    /**
     * With a connection provider and inside a unit of work: the lookup and the loads in one statement; the loaded
     * entries are kept in the root unit of work for the {@link #loadSaga} calls that follow (Axon's saga manager
     * loads each saga the lookup found right after it). Read in the same transaction as a load would be, so nothing
     * is cached across transactions or nodes.
     */
    @Override
    public Set<String> findSagas(@Nonnull Class<?> sagaType, @Nonnull AssociationValue associationValue) {
        if (connections == null || !CurrentUnitOfWork.isStarted()) {
            return delegate.findSagas(sagaType, associationValue);
        }
        String key = cached == null ? null : cacheKey(sagaType, associationValue);
        if (cached != null) {
            Map<String, Found> hit;
            synchronized (cached) {
                hit = cached.get(key);
            }
            if (hit != null) {
                CurrentUnitOfWork.get().root().resources().put(FOUND, new HashMap<>(hit));
                return new TreeSet<>(hit.keySet());
            }
        }
        Pending reading = cached == null ? null : pending(); // its generation is taken before the read
        Map<String, Found> found = new HashMap<>();
        Set<String> ids = new TreeSet<>();
        if (firstEventOf(associationValue)) {
            // an aggregate's first event: nothing can be associated with its id before the saga handled that event
            // (the token moves with the batch's writes), so the answer is known: none (decision 89)
            if (reading != null) {
                reading.reads.put(key, Map.of());
            }
            CurrentUnitOfWork.get().root().resources().put(FOUND, found);
            return ids;
        }
        String typeName = serializer.typeForClass(sagaType).getName();
        Connection connection = null;
        try {
            connection = connections.getConnection();
            try (PreparedStatement q = connection.prepareStatement(FIND_AND_LOAD)) {
                q.setString(1, associationValue.getKey());
                q.setString(2, associationValue.getValue());
                q.setString(3, typeName);
                try (ResultSet r = q.executeQuery()) {
                    while (r.next()) {
                        String id = r.getString(1);
                        ids.add(id);
                        if (!r.getBoolean(5)) {
                            found.put(id, Found.MISSING);
                            continue;
                        }
                        Set<AssociationValue> associations = new HashSet<>();
                        String[] keys = (String[]) r.getArray(6).getArray();
                        String[] values = (String[]) r.getArray(7).getArray();
                        for (int i = 0; i < keys.length; i++) {
                            associations.add(new AssociationValue(keys[i], values[i]));
                        }
                        found.put(id, new Found(new SimpleSerializedObject<>(r.getBytes(2), byte[].class,
                                r.getString(3), r.getString(4)), associations));
                    }
                }
            }
        } catch (SQLException e) {
            throw new SagaStorageException("Exception while loading sagas associated with " + associationValue, e);
        } finally {
            JdbcUtils.closeQuietly(connection);
        }
        if (reading != null && !found.containsValue(Found.MISSING)) {
            reading.reads.put(key, Map.copyOf(found));
        }
        CurrentUnitOfWork.get().root().resources().put(FOUND, found);
        return ids;
    }

    /** Whether the event being handled is the first of the aggregate whose id {@code value} holds. */
    private static boolean firstEventOf(AssociationValue value) {
        return CurrentUnitOfWork.get().getMessage() instanceof DomainEventMessage<?> event
                && event.getSequenceNumber() == 0 && value.getValue().equals(event.getAggregateIdentifier());
    }

    /** A saga as the lookup read it: its stored form and associations, or {@link #MISSING} (no saga row). */
    private record Found(SimpleSerializedObject<byte[]> form, Set<AssociationValue> associations) {
        static final Found MISSING = new Found(null, Set.of());
    }

    @Override
    public <S> Entry<S> loadSaga(@Nonnull Class<S> sagaType, @Nonnull String sagaIdentifier) {
        Entry<S> entry = foundByLookup(sagaIdentifier);
        if (entry == null) {
            entry = delegate.loadSaga(sagaType, sagaIdentifier);
        } else if (entry == MISSING_ENTRY) {
            entry = null;
        }
        if (entry != null && CurrentUnitOfWork.isStarted()) {
            CurrentUnitOfWork.get().root().<Map<String, byte[]>>getOrComputeResource(LOADED, k -> new HashMap<>())
                    .put(sagaIdentifier, form(entry.saga()));
        }
        return entry;
    }

    @Override
    public void updateSaga(@Nonnull Class<?> sagaType, @Nonnull String sagaIdentifier, @Nonnull Object saga,
                           @Nonnull AssociationValues associationValues) {
        forget(sagaIdentifier);
        Map<String, byte[]> loaded = loaded();
        byte[] before = loaded == null ? null : loaded.remove(sagaIdentifier);
        if (before != null && associationValues.addedAssociations().isEmpty()
                && associationValues.removedAssociations().isEmpty() && Arrays.equals(before, form(saga))) {
            return; // stored as it is: writing it again changes nothing but costs a row version and its WAL
        }
        delegate.updateSaga(sagaType, sagaIdentifier, saga, associationValues);
        cacheWrite(sagaType, sagaIdentifier, serialized(saga), associationValues.asSet(),
                associationValues.removedAssociations());
    }

    private SimpleSerializedObject<byte[]> serialized(Object saga) {
        SerializedObject<byte[]> form = serializer.serialize(saga, byte[].class);
        return new SimpleSerializedObject<>(form.getData(), byte[].class, form.getType());
    }

    /** A new saga and its associations in one statement (Axon's store: one, plus one per association). */
    private static final String INSERT = "WITH s AS (INSERT INTO SagaEntry (sagaId, revision, sagaType, serializedSaga)"
            + " VALUES (?, ?, ?, ?)) INSERT INTO AssociationValueEntry (associationKey, associationValue, sagaType, sagaId)"
            + " SELECT a.k, a.v, ?, ? FROM unnest(CAST(? AS varchar[]), CAST(? AS varchar[])) WITH ORDINALITY AS a(k, v, n)"
            + " ORDER BY a.n";

    /** An ended saga and its associations in one statement (Axon's store: two). */
    private static final String DELETE = "WITH a AS (DELETE FROM AssociationValueEntry WHERE sagaId = ?)"
            + " DELETE FROM SagaEntry WHERE sagaId = ?";

    @Override
    public void insertSaga(@Nonnull Class<?> sagaType, @Nonnull String sagaIdentifier, @Nonnull Object saga,
                           @Nonnull Set<AssociationValue> associationValues) {
        forget(sagaIdentifier);
        if (connections == null) {
            delegate.insertSaga(sagaType, sagaIdentifier, saga, associationValues);
            return;
        }
        SerializedObject<byte[]> form = serializer.serialize(saga, byte[].class);
        String[] keys = new String[associationValues.size()];
        String[] values = new String[associationValues.size()];
        int i = 0;
        for (AssociationValue v : associationValues) {
            keys[i] = v.getKey();
            values[i++] = v.getValue();
        }
        execute("Exception while storing saga " + sagaIdentifier, INSERT, (c, q) -> {
            q.setString(1, sagaIdentifier);
            q.setString(2, form.getType().getRevision());
            q.setString(3, form.getType().getName());
            q.setBytes(4, form.getData());
            q.setString(5, serializer.typeForClass(sagaType).getName());
            q.setString(6, sagaIdentifier);
            q.setArray(7, c.createArrayOf("varchar", keys));
            q.setArray(8, c.createArrayOf("varchar", values));
        });
        cacheWrite(sagaType, sagaIdentifier, new SimpleSerializedObject<>(form.getData(), byte[].class, form.getType()),
                associationValues, Set.of());
    }

    private interface Parameters {
        void set(Connection connection, PreparedStatement statement) throws SQLException;
    }

    private void execute(String failure, String sql, Parameters parameters) {
        Connection connection = null;
        try {
            connection = connections.getConnection();
            try (PreparedStatement q = connection.prepareStatement(sql)) {
                parameters.set(connection, q);
                q.executeUpdate();
            }
        } catch (SQLException e) {
            throw new SagaStorageException(failure, e);
        } finally {
            JdbcUtils.closeQuietly(connection);
        }
    }

    @Override
    public void deleteSaga(@Nonnull Class<?> sagaType, @Nonnull String sagaIdentifier,
                           @Nonnull Set<AssociationValue> associationValues) {
        forget(sagaIdentifier);
        Map<String, byte[]> loaded = loaded();
        if (loaded != null) {
            loaded.remove(sagaIdentifier);
        }
        if (connections == null) {
            delegate.deleteSaga(sagaType, sagaIdentifier, associationValues);
            return;
        }
        execute("Exception while deleting saga " + sagaIdentifier, DELETE, (c, q) -> {
            q.setString(1, sagaIdentifier);
            q.setString(2, sagaIdentifier);
        });
        cacheWrite(sagaType, sagaIdentifier, null, associationValues, Set.of());
    }

    @SuppressWarnings("rawtypes")
    private static final Entry MISSING_ENTRY = new Entry<>() {
        @Override
        public Set<AssociationValue> associationValues() {
            return Set.of();
        }

        @Override
        public Object saga() {
            return null;
        }
    };

    /** The entry the last lookup of this unit of work read for this saga (taken: used once), or null. */
    @SuppressWarnings("unchecked")
    private <S> Entry<S> foundByLookup(String sagaIdentifier) {
        if (!CurrentUnitOfWork.isStarted()) {
            return null;
        }
        Map<String, Found> found = CurrentUnitOfWork.get().root().getResource(FOUND);
        Found f = found == null ? null : found.remove(sagaIdentifier);
        if (f == null) {
            return null;
        }
        if (f == Found.MISSING) {
            return MISSING_ENTRY;
        }
        S saga = serializer.deserialize(f.form());
        Set<AssociationValue> associations = f.associations();
        return new Entry<>() {
            @Override
            public Set<AssociationValue> associationValues() {
                return associations;
            }

            @Override
            public S saga() {
                return saga;
            }
        };
    }

    /** A saga written or deleted in this unit of work is never served from an earlier lookup. */
    private static void forget(String sagaIdentifier) {
        if (CurrentUnitOfWork.isStarted()) {
            Map<String, Found> found = CurrentUnitOfWork.get().root().getResource(FOUND);
            if (found != null) {
                found.remove(sagaIdentifier);
            }
        }
    }

    private byte[] form(Object saga) {
        return serializer.serialize(saga, byte[].class).getData();
    }

    /** The forms loaded in this transaction (the root unit of work's), or null if none: then every update writes. */
    private static Map<String, byte[]> loaded() {
        return CurrentUnitOfWork.isStarted() ? CurrentUnitOfWork.get().root().getResource(LOADED) : null;
    }
}
