package io.durablecheckout.orchestrator.config;

import io.durablecheckout.orchestrator.CheckoutApplication;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Settings that contradict each other are refused at start, with a message that names them. */
class SettingsConsistencyTest {

    @Test
    void theDefaultsAgree() {
        assertThat(SettingsConsistency.problems(new MockEnvironment())).isEmpty();
    }

    @Test
    void aProviderCallLongerThanPostgresToleratesAnIdleTransactionIsRefused() {
        MockEnvironment env = new MockEnvironment()
                .withProperty("checkout.payments.request-timeout", "20s")
                .withProperty("checkout.workflow.payment-lease-duration", "60s");
        assertThat(SettingsConsistency.problems(env)).singleElement().asString()
                .contains("checkout.payments.connect-timeout + request-timeout (PT1S + PT20S)")
                .contains("checkout.datasource.idle-in-transaction-timeout (PT15S)");
        // the same call with the session limit raised above it is fine; 0 means no limit
        assertThat(SettingsConsistency.problems(env.withProperty("checkout.datasource.idle-in-transaction-timeout", "30s")))
                .isEmpty();
        assertThat(SettingsConsistency.problems(env.withProperty("checkout.datasource.idle-in-transaction-timeout", "0")))
                .isEmpty();
    }

    @Test
    void aPaymentLeaseNoLongerThanAProviderCallIsRefused() {
        MockEnvironment env = new MockEnvironment().withProperty("checkout.workflow.payment-lease-duration", "3s");
        assertThat(SettingsConsistency.problems(env)).singleElement().asString()
                .startsWith("checkout.workflow.payment-lease-duration (PT3S) must be longer than");
    }

    @Test
    void backOffsClaimsAndLimitsAreChecked() {
        MockEnvironment env = new MockEnvironment()
                .withProperty("checkout.workflow.retry-initial-delay", "2m")
                .withProperty("checkout.workflow.reconciliation-initial-delay", "0s")
                .withProperty("checkout.workflow.max-attempts", "0")
                .withProperty("checkout.processing.claim-timeout", "2s");
        assertThat(SettingsConsistency.problems(env)).hasSize(4).anyMatch(p -> p.startsWith(
                        "checkout.workflow.retry-initial-delay (PT2M) must not be longer than"))
                .anyMatch(p -> p.startsWith("checkout.workflow.reconciliation-initial-delay (PT0S) must be positive"))
                .anyMatch(p -> p.startsWith("checkout.workflow.max-attempts (0)"))
                .anyMatch(p -> p.startsWith("checkout.processing.claim-extension-threshold (PT2S) must be shorter"));
    }

    /** The real application refuses before it starts a database or opens a port. */
    @Test
    void theApplicationRefusesToStart() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(CheckoutApplication.class)
                .properties("checkout.payments.request-timeout=16s", "checkout.workflow.payment-lease-duration=60s",
                        "server.port=0", "checkout.embedded-postgres.data-dir=target/never-created")
                .run().close())
                .hasStackTraceContaining("Refusing to start: settings contradict each other")
                .hasStackTraceContaining("checkout.datasource.idle-in-transaction-timeout");
        assertThat(java.nio.file.Path.of("target/never-created")).doesNotExist();
    }
}
