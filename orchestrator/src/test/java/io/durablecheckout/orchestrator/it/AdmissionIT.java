package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import io.durablecheckout.orchestrator.admission.Admission;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.time.Duration;
import java.util.UUID;

import static io.durablecheckout.orchestrator.it.support.HttpApi.checkoutBody;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Back-pressure: at the backlog limit a new checkout gets 429 with Retry-After (problem+json) and nothing is written;
 * a retry of an accepted request still gets its 202.
 */
class AdmissionIT extends IntegrationTestBase {

    @Autowired
    Admission admission;

    @Autowired
    io.durablecheckout.orchestrator.service.CheckoutIds checkoutIds;

    private long limit;

    @AfterEach
    void restore() {
        admission.limit(limit);
        admission.refresh(Duration.ofMillis(200));
    }

    @Test
    void atTheBacklogLimitNewCheckoutsGet429WithRetryAfterAndRetriesOfAcceptedOnesStillSucceed() {
        limit = admission.limit();
        admission.refresh(Duration.ofHours(1)); // count once, then only what this node accepts
        admission.limit(1_000_000); // far above anything in flight: admitted, and counted
        admission.backlog();

        String acceptedKey = "adm-" + UUID.randomUUID();
        HttpApi.Response accepted = api.startCheckout(acceptedKey, checkoutBody("SKU-0300", 1, 900, "tok_approve"));
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        // demo has at least the one just accepted in flight: at a limit of 1 its share (1, whatever other tenants
        // the shared context left with work in flight) is taken
        admission.limit(1);

        String refusedKey = "adm-" + UUID.randomUUID();
        HttpApi.Response refused = api.startCheckout(refusedKey, checkoutBody("SKU-0300", 1, 900, "tok_approve"));
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.header("Content-Type")).startsWith("application/problem+json");
        assertThat(Long.parseLong(refused.header("Retry-After"))).isBetween(1L, 60L);
        assertThat(refused.json().get("type").asText()).endsWith("backlog-full");
        String refusedId = checkoutIds.idFor(
                new io.durablecheckout.api.values.TenantId("demo"), refusedKey).value();
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?", refusedId)).isZero();

        HttpApi.Response replay = api.startCheckout(acceptedKey, checkoutBody("SKU-0300", 1, 900, "tok_approve"));
        assertThat(replay.status()).isEqualTo(202);
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
    }
}
