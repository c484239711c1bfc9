package io.durablecheckout.orchestrator.axon.aggregate;

import org.axonframework.common.Registration;
import org.axonframework.common.caching.Cache;
import org.axonframework.messaging.unitofwork.CurrentUnitOfWork;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The Checkout aggregate cache (docs/decisions.md, 78): bounded, least recently used out, and every copy it hands out
 * is marked in the command's (or deadline's) unit of work, so {@link StaleCopyHandlerEnhancer} knows the decision was taken on a
 * cached copy. Whether that copy is still the newest is checked where the state lives: an append from a copy another
 * node has moved past collides on the event table's unique (aggregate, sequence) key; a decision that appends nothing
 * is checked against the store's last sequence number. Axon's repository drops an entry when its unit of work rolls
 * back, so a copy changed by a batch that never committed is not handed out again.
 */
public final class ConfirmedAggregateCache implements Cache {

    /** The unit-of-work resource naming the aggregate whose copy came from this cache. */
    static final String CACHED_COPY = ConfirmedAggregateCache.class.getName() + ".copy";

    private final Map<Object, Object> entries;

    /** @param maxEntries the bound; the least recently used entry goes first */
    public ConfirmedAggregateCache(int maxEntries) {
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
        if (entry != null && CurrentUnitOfWork.isStarted()) {
            CurrentUnitOfWork.get().resources().put(CACHED_COPY, key.toString());
        }
        return (V) entry;
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
