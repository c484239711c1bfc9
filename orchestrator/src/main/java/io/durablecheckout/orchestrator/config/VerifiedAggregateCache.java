package io.durablecheckout.orchestrator.config;

import org.axonframework.common.Registration;
import org.axonframework.common.caching.Cache;
import org.axonframework.common.jdbc.ConnectionProvider;
import org.axonframework.eventsourcing.AggregateCacheEntry;
import org.axonframework.eventsourcing.eventstore.EventStoreException;
import org.axonframework.eventsourcing.eventstore.jdbc.EventSchema;

import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The Checkout aggregate cache (decision 53): bounded (least recently used out), one lock, and a cached copy is
 * handed out only if it is still the newest. Another node may have appended to the checkout since this node cached
 * it (a node paused by SIGSTOP, a command routed elsewhere, a deadline run elsewhere). An append from a stale copy
 * collides on the sequence number, but a decision that appends nothing (a result for a lease the stale copy never
 * saw, a deadline it thinks is obsolete) would be taken silently on old state. So each hit costs one index lookup
 * of the store's last sequence number, inside the command's transaction, instead of the snapshot lookup and the
 * events; a copy that is behind is dropped and the repository reads the history as without a cache.
 */
public final class VerifiedAggregateCache implements Cache {

    private static final Field VERSION = versionField();

    private final ConnectionProvider connections;
    private final String lastSequenceSql;
    private final Map<Object, Object> entries;

    public VerifiedAggregateCache(ConnectionProvider connections, EventSchema schema, int maxEntries) {
        this.connections = connections;
        this.lastSequenceSql = "SELECT max(" + schema.sequenceNumberColumn() + ") FROM " + schema.domainEventTable()
                + " WHERE " + schema.aggregateIdentifierColumn() + " = ?";
        this.entries = new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Object, Object> eldest) {
                return size() > maxEntries;
            }
        };
    }

    @Override
    @SuppressWarnings("unchecked")
    public <K, V> V get(K key) {
        Object entry;
        synchronized (entries) {
            entry = entries.get(key);
        }
        if (entry == null) {
            return null;
        }
        if (entry instanceof AggregateCacheEntry<?> cached && !isNewest(key.toString(), version(cached))) {
            remove(key);
            return null;
        }
        return (V) entry;
    }

    private boolean isNewest(String aggregateIdentifier, Long cachedVersion) {
        try (Connection connection = connections.getConnection();
             PreparedStatement statement = connection.prepareStatement(lastSequenceSql)) {
            statement.setString(1, aggregateIdentifier);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                long last = rs.getLong(1);
                return !rs.wasNull() && cachedVersion != null && last == cachedVersion;
            }
        } catch (SQLException e) {
            throw new EventStoreException("Could not check the cached copy of " + aggregateIdentifier, e);
        }
    }

    /** Axon keeps the version private; read it rather than rebuild the aggregate to learn it. */
    private static Long version(AggregateCacheEntry<?> entry) {
        try {
            return (Long) VERSION.get(entry);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Field versionField() {
        try {
            Field field = AggregateCacheEntry.class.getDeclaredField("version");
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("Axon's AggregateCacheEntry changed: the cache cannot verify copies", e);
        }
    }

    @Override
    public void put(Object key, Object value) {
        synchronized (entries) {
            entries.put(key, value);
        }
    }

    @Override
    public boolean putIfAbsent(Object key, Object value) {
        synchronized (entries) {
            return entries.putIfAbsent(key, value) == null;
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T computeIfAbsent(Object key, Supplier<T> valueSupplier) {
        synchronized (entries) {
            return (T) entries.computeIfAbsent(key, k -> valueSupplier.get());
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V> void computeIfPresent(Object key, UnaryOperator<V> update) {
        synchronized (entries) {
            entries.computeIfPresent(key, (k, v) -> update.apply((V) v));
        }
    }

    @Override
    public boolean remove(Object key) {
        synchronized (entries) {
            return entries.remove(key) != null;
        }
    }

    @Override
    public void removeAll() {
        synchronized (entries) {
            entries.clear();
        }
    }

    @Override
    public boolean containsKey(Object key) {
        synchronized (entries) {
            return entries.containsKey(key);
        }
    }

    @Override
    public Registration registerCacheEntryListener(EntryListener cacheEntryListener) {
        Objects.requireNonNull(cacheEntryListener);
        return () -> true; // nothing in the product listens to this cache
    }

    public int size() {
        synchronized (entries) {
            return entries.size();
        }
    }
}
