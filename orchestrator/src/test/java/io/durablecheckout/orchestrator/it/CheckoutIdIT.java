package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import io.durablecheckout.api.privacy.PersonalData;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.service.CheckoutIds;
import io.durablecheckout.orchestrator.service.CheckoutRequest;
import io.durablecheckout.orchestrator.service.LegacySubmission;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 53: checkout ids nobody can compute from tenant and Idempotency-Key (a keyed hash, docs/decisions.md 95),
 * still idempotent, and a request accepted under the old name-based id is still found when retried.
 */
class CheckoutIdIT extends IntegrationTestBase {

    private static final TenantId DEMO = new TenantId("demo");

    @Autowired
    PersonalData vault;

    @Autowired
    CommandGateway commands;

    @Autowired
    CheckoutIds ids;

    @Test
    void theIdOfANewCheckoutCannotBeComputedFromTenantAndKey() {
        String key = "ids-" + UUID.randomUUID();
        HttpApi.Response created = api.startCheckout(key, HttpApi.checkoutBody("SKU-0301", 1, 900, "tok_approve"));
        assertThat(created.status()).as(created.body()).isEqualTo(202);
        String id = created.json().get("checkoutId").asText();
        String computable = CheckoutIds.legacyIdFor(DEMO, key).value();

        assertThat(id).startsWith("co_").isNotEqualTo(computable);
        assertThat(api.get("/api/v1/checkouts/" + computable).status()).isEqualTo(404);
        assertThat(events(computable)).isZero();
        assertThat(events(id)).isPositive();
    }

    @Test
    void concurrentDuplicatesMakeOneCheckout() {
        String key = "ids-" + UUID.randomUUID();
        String body = HttpApi.checkoutBody("SKU-0302", 1, 900, "tok_approve");
        List<HttpApi.Response> answers = IntStream.range(0, 8)
                .mapToObj(i -> CompletableFuture.supplyAsync(() -> new HttpApi(port).startCheckout(key, body)))
                .toList().stream().map(CompletableFuture::join).toList();
        assertThat(answers).allSatisfy(a -> assertThat(a.status()).as(a.body()).isIn(200, 201, 202));
        assertThat(answers.stream().map(a -> a.json().get("checkoutId").asText()).distinct()).hasSize(1);
        String id = answers.get(0).json().get("checkoutId").asText();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? "
                + "AND sequencenumber = 0", Integer.class, id)).isEqualTo(1);
    }

    @Test
    void aRequestAcceptedBeforeTheUpgradeRetriedAfterItReturnsItsOldCheckout() {
        String key = "ids-legacy-" + UUID.randomUUID();
        String body = HttpApi.checkoutBody("SKU-0303", 2, 1800, "tok_approve");
        String old = LegacySubmission.submit(vault, commands, DEMO, key, new CheckoutRequest(
                List.of(new CheckoutRequest.Item("SKU-0303", 2)), new CheckoutRequest.Amount(1800L, "EUR"),
                "tok_approve", "a@example.com")).value();

        HttpApi.Response retried = api.startCheckout(key, body);
        assertThat(retried.status()).as(retried.body()).isIn(200, 202);
        assertThat(retried.header("Idempotent-Replayed")).isEqualTo("true");
        assertThat(retried.json().get("checkoutId").asText()).isEqualTo(old);
        assertThat(events(ids.idFor(DEMO, key).value())).as("no second checkout under the new id").isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ? "
                + "AND sequencenumber = 0", Integer.class, old)).isEqualTo(1);

        // the same key for another request is still refused, naming the old checkout
        HttpApi.Response reused = api.startCheckout(key, HttpApi.checkoutBody("SKU-0303", 3, 2700, "tok_approve"));
        assertThat(reused.status()).as(reused.body()).isEqualTo(422);
        assertThat(reused.body()).contains(old);
    }

    private int events(String aggregate) {
        return jdbc.queryForObject("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?",
                Integer.class, aggregate);
    }
}
