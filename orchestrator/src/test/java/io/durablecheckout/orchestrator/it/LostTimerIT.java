package io.durablecheckout.orchestrator.it;

import io.durablecheckout.activities.inventory.InventoryAdmin;
import io.durablecheckout.api.values.TenantId;
import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import io.durablecheckout.orchestrator.service.OverdueTimerWatchdog;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.axonframework.commandhandling.gateway.CommandGateway;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lost timer (decision 135): a checkout waiting for its customer (3-D Secure, {@code tok_3ds_abandoned}: nobody
 * authenticates) loses its deadline row. Past its deadline it stays where it was, visibly waiting; the timer watchdog
 * finds it, the checkout schedules again what it waits for, and the customer's time runs out as it would have:
 * cancelled, the authorization voided at the provider once.
 */
class LostTimerIT extends IntegrationTestBase {

    @Autowired
    InventoryAdmin inventory;

    @Autowired
    CommandGateway commands;

    @Test
    void aCheckoutWhoseDeadlineRowIsLostIsFoundByTheWatchdogAndDecidesAsItWouldHave() {
        String sku = "LOST-" + UUID.randomUUID().toString().substring(0, 8);
        inventory.seed(new TenantId("demo"), sku, 10);
        HttpApi.Response started = api.startCheckout("it-" + UUID.randomUUID(),
                HttpApi.checkoutBody(sku, 1, 2500, "tok_3ds_abandoned"));
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        String id = started.json().get("checkoutId").asText();
        api.awaitState(id, "customer_action_required", Duration.ofSeconds(30));
        String rows = "SELECT count(*) FROM scheduled_tasks WHERE position(convert_to(?, 'UTF8') IN task_data) > 0";
        await().atMost(Duration.ofSeconds(10)).until(() -> count(rows, id) > 0);

        // the loss: its deadline rows go
        assertThat(jdbc.update("DELETE FROM scheduled_tasks WHERE position(convert_to(?, 'UTF8') IN task_data) > 0",
                id)).isPositive();
        // the read model may not have the checkout yet: its row is awaited, not read once
        await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM checkout_summary"
                + " WHERE checkout_id = ? AND next_deadline < now()", id) == 1);
        long events = count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?", id);
        await("past its deadline, nothing moves it").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                .until(() -> count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?", id) == events);

        OverdueTimerWatchdog watchdog = new OverdueTimerWatchdog(jdbc, commands, Duration.ZERO, 100,
                new SimpleMeterRegistry());
        assertThat(watchdog.sweep(Instant.now())).as("checkouts whose timers were scheduled again").isPositive();

        assertThat(api.awaitState(id, "cancelled", Duration.ofSeconds(30)).get("reason").asText())
                .isEqualTo("customer_action_timed_out");
        await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT count(*) FROM simulator_authorizations"
                + " WHERE operation_id = ? AND voided", id + "/authorize-payment") == 1);
        assertThat(count("SELECT count(*) FROM simulator_calls WHERE action = 'VOID' AND operation_id = ?",
                id + "/authorize-payment")).isEqualTo(1);
        // finished: a later sweep leaves it alone
        long after = count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?", id);
        watchdog.sweep(Instant.now());
        assertThat(count("SELECT count(*) FROM domainevententry WHERE aggregateidentifier = ?", id)).isEqualTo(after);
    }
}
