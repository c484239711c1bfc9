package io.durablecheckout.orchestrator.replay;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Classes a hostile bundle names, each counting what happened to it: the proof that replay refuses them without
 * creating (or even initializing) them.
 */
final class HostileTypes {

    static final AtomicInteger CONSTRUCTED = new AtomicInteger();
    static final AtomicInteger INITIALIZED = new AtomicInteger();

    private HostileTypes() {
    }

    /** A bean Jackson could build from {@code {}}: its constructor counts. */
    public static final class Payload {
        public Payload() {
            CONSTRUCTED.incrementAndGet();
        }
    }

    /** A class whose loading with initialization counts (named as a nested result's {@code @type}). */
    public static final class Initialized {
        static {
            INITIALIZED.incrementAndGet();
        }

        public Initialized() {
            CONSTRUCTED.incrementAndGet();
        }
    }
}
