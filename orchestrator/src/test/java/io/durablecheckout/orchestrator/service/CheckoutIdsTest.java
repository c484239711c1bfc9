package io.durablecheckout.orchestrator.service;

import io.durablecheckout.api.values.TenantId;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CheckoutIdsTest {

    private static final TenantId DEMO = new TenantId("demo");

    private static byte[] key(int fill) {
        byte[] key = new byte[CheckoutIds.KEY_BYTES];
        Arrays.fill(key, (byte) fill);
        return key;
    }

    @Test
    void theSameTenantAndKeyGiveTheSameIdUnderTheSameKeyOnly() {
        CheckoutIds ids = new CheckoutIds(key(1));
        String id = ids.idFor(DEMO, "k-1").value();
        assertThat(ids.idFor(DEMO, "k-1").value()).isEqualTo(id);
        assertThat(new CheckoutIds(key(1)).idFor(DEMO, "k-1").value()).isEqualTo(id);
        assertThat(new CheckoutIds(key(2)).idFor(DEMO, "k-1").value()).isNotEqualTo(id);
        assertThat(ids.idFor(DEMO, "k-2").value()).isNotEqualTo(id);
        assertThat(ids.idFor(new TenantId("other"), "k-1").value()).isNotEqualTo(id);
        assertThat(id).isNotEqualTo(CheckoutIds.legacyIdFor(DEMO, "k-1").value());
    }

    @Test
    void anIdIsAVersion8UuidAfterTheOldPrefixAndTheLegacyOneTheOldNameBasedUuid() {
        UUID uuid = UUID.fromString(new CheckoutIds(key(3)).idFor(DEMO, "k").value().substring(3));
        assertThat(uuid.version()).isEqualTo(8);
        assertThat(uuid.variant()).isEqualTo(2);
        assertThat(CheckoutIds.legacyIdFor(DEMO, "k").value())
                .isEqualTo("co_" + UUID.nameUUIDFromBytes("demo\nk".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    @Test
    void aShortKeyOrNoneIsRefused() {
        assertThatThrownBy(() -> new CheckoutIds(new byte[16])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CheckoutIds.unavailable("no store").idFor(DEMO, "k"))
                .isInstanceOf(IllegalStateException.class).hasMessage("no store");
    }
}
