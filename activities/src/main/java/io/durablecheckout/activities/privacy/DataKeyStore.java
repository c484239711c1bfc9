package io.durablecheckout.activities.privacy;

import java.util.Optional;

/**
 * Where the checkouts' data keys live: outside PostgreSQL, because a key PostgreSQL stored cannot be erased by
 * PostgreSQL (an UPDATE leaves the old row version in the page, and the WAL and backups keep it). Erasure is
 * {@link #destroy}: the store holds the only copy. One adapter per real key service; {@link FileDataKeyStore} is the
 * embedded default's (docs/security.md names the production options).
 */
public interface DataKeyStore {

    /** Property naming the store's location (for {@link FileDataKeyStore}, a directory). */
    String PROPERTY = "checkout.personal-data.key-store";

    /**
     * Stores {@code key} as the checkout's key unless it already has one, atomically across threads and every
     * process sharing the store, and durably before it returns. The key in force: {@code key}, or the one already
     * there.
     */
    byte[] create(String checkoutId, byte[] key);

    /** The checkout's key; empty when there is none (never created, or destroyed). */
    Optional<byte[]> find(String checkoutId);

    /** Deletes the checkout's key for good. True when there was one; destroying again is harmless. */
    boolean destroy(String checkoutId);

    /**
     * No store configured: a process that never seals or opens (the provider simulator on its own). Every other
     * process is refused at start without one ({@code StartupSafetyCheck}), so reaching this is a wiring mistake.
     */
    final class Unconfigured implements DataKeyStore {
        private static IllegalStateException missing() {
            return new IllegalStateException(PROPERTY + " is not set: no data key store for personal data");
        }

        @Override
        public byte[] create(String checkoutId, byte[] key) {
            throw missing();
        }

        @Override
        public Optional<byte[]> find(String checkoutId) {
            throw missing();
        }

        @Override
        public boolean destroy(String checkoutId) {
            throw missing();
        }
    }
}
