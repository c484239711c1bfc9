package io.durablecheckout.orchestrator.config;

import org.axonframework.common.Registration;
import org.axonframework.common.caching.Cache;
import org.axonframework.eventsourcing.AggregateCacheEntry;

import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The Checkout aggregate cache (docs/decisions.md §60): bounded (least recently used out), one lock, and a cached
 * copy is handed out only while it is still the newest. Another node may have appended to the checkout since this
 * node cached it (a node paused by SIGSTOP, a command routed elsewhere, a deadline run elsewhere). An append from a
 * stale copy collides on the sequence number, but a decision that appends nothing (a result for a lease the stale
 * copy never saw, a deadline it thinks obsolete) would be taken silently on old state. So each hit costs one lookup
 * of the store's last sequence number, inside the command's transaction, instead of reading and deserializing the
 * checkout's history; a copy that is behind is dropped and the repository reads the history as without a cache.
 * <p>
 * A checkout that has come to rest is not kept: it is done with, and a late command on it reads its history.
 */
public final class VerifiedAggregateCache implements Cache {

    private static final Field VERSION = field("version");
    private static final Field ROOT = field("aggregateRoot");

    private final Function<String, Optional<Long>> lastSequence;
    private final Predicate<Object> keep;
    private final Map<Object, Object> entries;

    /**
     * @param lastSequence the store's last sequence number of an aggregate, read in the caller's transaction
     * @param keep         whether an aggregate root is worth keeping (false: it is dropped instead of cached)
     * @param maxEntries   the bound; the least recently used entry goes first
     */
    public VerifiedAggregateCache(Function<String, Optional<Long>> lastSequence, Predicate<Object> keep,
                                  int maxEntries) {
        this.lastSequence = lastSequence;
        this.keep = keep;
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
        if (entry instanceof AggregateCacheEntry<?> cached && !isNewest(key.toString(), read(VERSION, cached))) {
            remove(key);
            return null;
        }
        return (V) entry;
    }

    private boolean isNewest(String aggregateIdentifier, Object cachedVersion) {
        Optional<Long> last = lastSequence.apply(aggregateIdentifier);
        return cachedVersion != null && last.isPresent() && last.get().equals(cachedVersion);
    }

    @Override
    public void put(Object key, Object value) {
        synchronized (entries) {
            if (worthKeeping(value)) {
                entries.put(key, value);
            } else {
                entries.remove(key);
            }
        }
    }

    private boolean worthKeeping(Object value) {
        return !(value instanceof AggregateCacheEntry<?> entry) || keep.test(read(ROOT, entry));
    }

    @Override
    public boolean putIfAbsent(Object key, Object value) {
        synchronized (entries) {
            if (entries.containsKey(key)) {
                return false;
            }
            put(key, value);
            return true;
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

    /** Axon keeps the entry's version and root private; read them rather than rebuild the aggregate to learn them. */
    private static Object read(Field field, AggregateCacheEntry<?> entry) {
        try {
            return field.get(entry);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Field field(String name) {
        try {
            Field field = AggregateCacheEntry.class.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("Axon's AggregateCacheEntry changed: the cache cannot verify copies", e);
        }
    }
}
