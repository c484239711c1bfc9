package io.durablecheckout.orchestrator.config;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The training run sends checkouts with the demo key: never against a configured database or with the demo off. (That
 * it completes its checkouts is checked by every {@code ./mvnw package}: the build fails when the training start does.)
 */
class TrainingRunTest {

    @Test
    void refusesAConfiguredDatabase() {
        MockEnvironment env = new MockEnvironment().withProperty("checkout.demo.enabled", "true")
                .withProperty("spring.datasource.url", "jdbc:postgresql://db:5432/checkout");
        assertThatThrownBy(() -> new TrainingRun(env).run(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("only on the embedded demo");
    }

    @Test
    void refusesWithTheDemoOff() {
        MockEnvironment env = new MockEnvironment().withProperty("checkout.demo.enabled", "false");
        assertThatThrownBy(() -> new TrainingRun(env).run(1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("only on the embedded demo");
    }
}
