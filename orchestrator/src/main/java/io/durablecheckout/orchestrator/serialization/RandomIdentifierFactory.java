package io.durablecheckout.orchestrator.serialization;

import org.axonframework.common.IdentifierFactory;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Axon's message identifiers (every command, event and deadline message gets one) as random version-4 UUIDs drawn
 * from the thread's own generator instead of {@link UUID#randomUUID()}'s shared {@code SecureRandom}, which takes a
 * lock and reads the kernel's pool every other call. An identifier has to be unique, not unpredictable: it is
 * no secret and grants nothing, and the event table's unique index would refuse a duplicate. Found by Axon through
 * {@code META-INF/services}; decisions never read these ids (replay compares payloads). docs/decisions.md §59.
 */
public final class RandomIdentifierFactory extends IdentifierFactory {

    @Override
    public String generateIdentifier() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high = (random.nextLong() & ~0xF000L) | 0x4000L; // version 4
        long low = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L; // IETF variant
        return new UUID(high, low).toString();
    }
}
