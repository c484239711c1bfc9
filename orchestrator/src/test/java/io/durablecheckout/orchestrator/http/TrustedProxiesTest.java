package io.durablecheckout.orchestrator.http;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What checkout.security.trusted-proxies accepts: addresses and CIDR blocks, never a name or a pattern. */
class TrustedProxiesTest {

    @Test
    void addressesBecomeSingleAddressBlocksAndBlocksStayAsGiven() {
        assertThat(TrustedProxies.blocks(List.of("10.0.0.0/8", " 192.0.2.7 ", "::1", "fd00::/8", "")))
                .containsExactly("10.0.0.0/8", "192.0.2.7/32", "::1/128", "fd00::/8");
        assertThat(TrustedProxies.blocks(List.of())).isEmpty();
    }

    @Test
    void namesPatternsAndBadBlocksAreRefused() {
        for (String bad : List.of("proxy.internal", "dead.beef", "10\\.0\\..*", "10.0.0.0/33", "300.1.1.1")) {
            assertThatThrownBy(() -> TrustedProxies.blocks(List.of(bad))).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trusted-proxies");
        }
    }

    @Test
    void springBootsOwnSwitchIsRefusedSoThereIsOneSwitch() {
        assertThatThrownBy(() -> new TrustedProxies().trustedProxiesValve(
                new MockEnvironment().withProperty("server.forward-headers-strategy", "native")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("checkout.security.trusted-proxies");
        assertThat(new TrustedProxies().trustedProxiesValve(
                new MockEnvironment().withProperty("server.forward-headers-strategy", "NONE"))).isNotNull();
        // refused with the other contradicting settings, before any bean, naming both
        assertThat(io.durablecheckout.orchestrator.config.SettingsConsistency.problems(new MockEnvironment()
                .withProperty("server.forward-headers-strategy", "native")
                .withProperty("checkout.security.trusted-proxies", "proxy.internal")))
                .anyMatch(p -> p.startsWith("server.forward-headers-strategy=native is not used"))
                .anyMatch(p -> p.contains("'proxy.internal' is not an IP address"));
    }
}
