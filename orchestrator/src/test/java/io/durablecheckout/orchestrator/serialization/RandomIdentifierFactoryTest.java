package io.durablecheckout.orchestrator.serialization;

import org.axonframework.common.IdentifierFactory;
import org.axonframework.eventhandling.GenericEventMessage;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class RandomIdentifierFactoryTest {

    @Test
    void axonFindsItAndEveryMessageGetsADistinctVersion4Uuid() {
        assertThat(IdentifierFactory.getInstance()).isInstanceOf(RandomIdentifierFactory.class);
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            String id = GenericEventMessage.asEventMessage("x").getIdentifier();
            UUID uuid = UUID.fromString(id);
            assertThat(uuid.version()).isEqualTo(4);
            assertThat(uuid.variant()).isEqualTo(2);
            assertThat(uuid.toString()).isEqualTo(id);
            assertThat(seen.add(id)).as("duplicate %s", id).isTrue();
        }
    }
}
