package io.durablecheckout.orchestrator.serialization;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durablecheckout.api.checkout.CheckoutPolicy;
import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Lease;
import io.durablecheckout.api.values.Money;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Value objects read in either shape, strictly; printed plain; the stored shape is unchanged. */
class ValueObjectsTest {

    static final ObjectMapper STORED = AxonJson.strictEventObjectMapper();
    static final ObjectMapper PRINTED = ProductJson.mapper();

    @Test
    void theStoredShapeIsUnchangedAndBothShapesRead() throws Exception {
        assertThat(STORED.writeValueAsString(new CheckoutId("co_1"))).isEqualTo("{\"value\":\"co_1\"}");
        assertThat(STORED.writeValueAsString(new FencingToken(3))).isEqualTo("{\"value\":3}");
        assertThat(STORED.readValue("{\"value\":\"co_1\"}", CheckoutId.class)).isEqualTo(new CheckoutId("co_1"));
        assertThat(STORED.readValue("\"co_1\"", CheckoutId.class)).isEqualTo(new CheckoutId("co_1"));
        assertThat(STORED.readValue("{\"value\":3}", FencingToken.class)).isEqualTo(new FencingToken(3));
        assertThat(STORED.readValue("3", FencingToken.class)).isEqualTo(new FencingToken(3));
    }

    @Test
    void printedPlainWithIsoDurations() throws Exception {
        assertThat(PRINTED.writeValueAsString(new CheckoutId("co_1"))).isEqualTo("\"co_1\"");
        assertThat(PRINTED.writeValueAsString(new FencingToken(3))).isEqualTo("3");
        assertThat(PRINTED.writeValueAsString(new Money(3998, "EUR"))).isEqualTo("{\"minor\":3998,\"currency\":\"EUR\"}");
        CheckoutPolicy policy = new CheckoutPolicy(1, Duration.ofSeconds(30), Duration.ofSeconds(30),
                Duration.ofMillis(200), Duration.ofMinutes(1), 8, Duration.ofSeconds(2), Duration.ofMinutes(5), 6);
        String json = PRINTED.writeValueAsString(policy);
        assertThat(json).contains("\"leaseDuration\":\"PT30S\"").contains("\"retryInitialDelay\":\"PT0.2S\"")
                .contains("\"reconciliationMaxDelay\":\"PT5M\"");
        assertThat(STORED.readValue(json, CheckoutPolicy.class)).isEqualTo(policy);
        assertThat(STORED.readValue(STORED.writeValueAsString(policy), CheckoutPolicy.class)).isEqualTo(policy);
    }

    @Test
    void anythingElseIsRefused() {
        assertThatThrownBy(() -> STORED.readValue("{\"value\":\"co_1\",\"extra\":1}", CheckoutId.class))
                .hasMessageContaining("only the field");
        assertThatThrownBy(() -> STORED.readValue("{\"id\":\"co_1\"}", CheckoutId.class))
                .hasMessageContaining("CheckoutId");
        assertThatThrownBy(() -> STORED.readValue("\" \"", CheckoutId.class)).hasMessageContaining("blank");
        assertThatThrownBy(() -> STORED.readValue("[\"co_1\"]", CheckoutId.class)).hasMessageContaining("CheckoutId");
        assertThatThrownBy(() -> STORED.readValue("0", FencingToken.class)).hasMessageContaining(">= 1");
        // only single-value records of the published language: a record of several values keeps its object
        assertThat(ValueObjects.valueComponent(Lease.class)).isNull();
        assertThat(ValueObjects.valueComponent(Money.class)).isNull();
    }
}
