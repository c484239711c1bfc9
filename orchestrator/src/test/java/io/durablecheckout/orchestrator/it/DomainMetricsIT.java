package io.durablecheckout.orchestrator.it;

import io.durablecheckout.orchestrator.it.support.HttpApi;
import io.durablecheckout.orchestrator.it.support.IntegrationTestBase;
import io.durablecheckout.orchestrator.it.support.Prometheus;

import org.junit.jupiter.api.Test;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The domain metrics at /actuator/prometheus, scraped before and after a known workload: each counter moved by
 * exactly what the workload did, and the gauges read what the database holds.
 */
class DomainMetricsIT extends IntegrationTestBase {

    @Test
    void prometheusCountsWhatTheWorkloadDid() {
        // Other tests' checkouts finish first, so only this workload moves the counters in between.
        // (A checkout whose summary row is not written yet, decision 80's tick, counts as not finished.)
        await().atMost(Duration.ofSeconds(60)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE NOT terminal AND state <> 'manual_review'") == 0
                && count("SELECT count(*) FROM checkout_summary") == createdCheckouts());
        Prometheus before = scrape();

        List<String> ids = new ArrayList<>();
        for (String token : List.of("tok_approve", "tok_approve", "tok_approve", "tok_decline", "tok_decline",
                "tok_timeout_then_approve", "tok_unknown")) {
            HttpApi.Response r = api.startCheckout("metrics-" + UUID.randomUUID(),
                    HttpApi.checkoutBody("SKU-0042", 1, 1250, token));
            assertThat(r.status()).isEqualTo(202);
            ids.add(r.json().get("checkoutId").asText());
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> count("SELECT count(*) FROM checkout_summary WHERE "
                + "checkout_id = ANY(?) AND (terminal OR state = 'manual_review')", (Object) ids.toArray(String[]::new)) == 7);

        // Counted after the projection's batch commits: wait for the last of them.
        await().atMost(Duration.ofSeconds(10)).until(() ->
                delta(before, scrape(), "checkout_reconciliation_escalations_total") == 1);
        Prometheus after = scrape();

        assertThat(delta(before, after, "checkout_started_total")).isEqualTo(7);
        assertThat(delta(before, after, "checkout_finished_total", "state", "completed")).isEqualTo(4);
        assertThat(delta(before, after, "checkout_finished_total", "state", "cancelled", "reason", "payment_declined"))
                .isEqualTo(2);
        assertThat(delta(before, after, "checkout_leases_granted_total", "step", "reserve-stock")).isEqualTo(7);
        assertThat(delta(before, after, "checkout_leases_granted_total", "step", "authorize-payment")).isEqualTo(7);
        assertThat(delta(before, after, "checkout_leases_granted_total", "step", "send-receipt")).isEqualTo(4);
        assertThat(delta(before, after, "checkout_leases_granted_total", "step", "release-stock")).isEqualTo(2);
        // tok_timeout_then_approve: one lookup finds it authorized; tok_unknown: 3 lookups (the test maximum), PENDING
        assertThat(delta(before, after, "checkout_reconciliation_lookups_total")).isEqualTo(4);
        assertThat(delta(before, after, "checkout_manual_review_total", "step", "reconcile-payment")).isEqualTo(1);
        // a zero is only a zero if the series is there: an absent series reads 0 too
        for (String step : List.of("reserve-stock", "authorize-payment", "send-receipt", "release-stock")) {
            assertThat(after.has("checkout_leases_expired_total", "step", step)).as("leases expired, %s: %s", step, after.describe("checkout_leases_expired_total")).isTrue();
            assertThat(after.has("checkout_leases_renewed_total", "step", step)).as("leases renewed, %s", step).isTrue();
            assertThat(after.has("checkout_fencing_stale_results_rejected_total", "step", step))
                    .as("stale results rejected, %s", step).isTrue();
        }
        assertThat(after.has("checkout_finished_total", "state", "cancelled", "reason", "out_of_stock")).isTrue();
        assertThat(delta(before, after, "checkout_leases_expired_total")).isZero();
        assertThat(delta(before, after, "checkout_fencing_stale_results_rejected_total")).isZero();
        // every checkout left 'created' once; two left reconciliation_pending (authorized, and manual review)
        assertThat(delta(before, after, "checkout_state_duration_seconds_count", "state", "created")).isEqualTo(7);
        assertThat(delta(before, after, "checkout_state_duration_seconds_count", "state", "reconciliation_pending"))
                .isEqualTo(2);
        // each lookup was due on a deadline, and db-scheduler's lag was measured for each
        assertThat(delta(before, after, "checkout_deadline_lag_seconds_count", "deadline",
                "checkout-reconciliation-due")).isEqualTo(4);
        assertThat(delta(before, after, "checkout_activity_executions_total", "step", "authorize-payment",
                "outcome", "authorized")).isEqualTo(3);

        // Gauges read the durable state: what the read model holds now.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            Prometheus now = scrape();
            assertThat(now.value("checkout_in_flight", "state", "manual_review"))
                    .isEqualTo((double) count("SELECT count(*) FROM checkout_summary WHERE state = 'manual_review'"));
            assertThat(now.value("checkout_callbacks_duplicates_total")).isEqualTo((double) count(
                    "SELECT coalesce(sum(deliveries - 1), 0) FROM provider_notifications"));
            assertThat(now.value("checkout_dead_letters", "processor", "payments")).isEqualTo((double) count(
                    "SELECT count(*) FROM deadletterentry WHERE processinggroup = 'payments'"));
        });
        assertThat(after.value("checkout_in_flight", "state", "manual_review")).isGreaterThanOrEqualTo(1);
        // the age of the longest waiting review, as the read model has it (read after the scrape, so no younger)
        Double oldestReview = jdbc.queryForObject("SELECT extract(epoch FROM clock_timestamp() - min(state_entered_at)) "
                + "FROM checkout_summary WHERE state = 'manual_review'", Double.class);
        assertThat(after.value("checkout_state_oldest_seconds", "state", "manual_review")).isPositive()
                .isLessThanOrEqualTo(oldestReview + 1);
        assertThat(after.has("checkout_dead_letters")).isTrue();
    }

    /**
     * checkout_deadline_overdue_seconds (issue 51, the CheckoutDeadlineOverdue alert): how far the most overdue
     * checkout of a state is past its next deadline, 0 when none is. A summary row past its deadline by two minutes
     * stands in for a checkout whose deadline nobody ran (no node up); removed afterwards.
     */
    @Test
    void aCheckoutPastItsNextDeadlineIsShownAsOverdue() {
        String id = "co_overdue-" + UUID.randomUUID();
        assertThat(scrape().has("checkout_deadline_overdue_seconds", "state", "confirmed")).isTrue();
        jdbc.update("INSERT INTO checkout_summary (checkout_id, tenant_id, state, version, terminal, next_deadline, view,"
                + " created_at, updated_at, state_entered_at) VALUES (?, 'demo', 'confirmed', 0, false,"
                + " now() - interval '120 seconds', '{}'::jsonb, now(), now(), now())", id);
        try {
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                    scrape().value("checkout_deadline_overdue_seconds", "state", "confirmed"))
                    .isBetween(120.0, 150.0));
        } finally {
            jdbc.update("DELETE FROM checkout_summary WHERE checkout_id = ?", id);
        }
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                scrape().value("checkout_deadline_overdue_seconds", "state", "confirmed")).isLessThan(60.0));
    }

    /**
     * A completed checkout later refunded finished once: the refund counts in checkout_refunds_total, and across the
     * workload started - finished moved as the in-flight gauges' sum did (nothing left in flight: both by zero).
     */
    @Test
    void aRefundAfterCompletionIsNoSecondFinishAndTheCountersAddUp() {
        await().atMost(Duration.ofSeconds(60)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE NOT terminal AND state <> 'manual_review'") == 0
                && count("SELECT count(*) FROM checkout_summary") == createdCheckouts());
        Prometheus before = scrape();
        HttpApi.Response r = api.startCheckout("metrics-refund-" + UUID.randomUUID(),
                HttpApi.checkoutBody("SKU-0043", 1, 990, "tok_approve"));
        assertThat(r.status()).isEqualTo(202);
        String id = r.json().get("checkoutId").asText();
        await().atMost(Duration.ofSeconds(60)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'completed'", id) == 1);
        HttpApi.Response cancel = api.send("POST", "/api/v1/checkouts/" + id + "/cancel", HttpApi.DEMO_KEY,
                java.util.Map.of(), "{\"reason\":\"returned the goods\"}");
        assertThat(cancel.status()).as(cancel.body()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(60)).until(() -> count(
                "SELECT count(*) FROM checkout_summary WHERE checkout_id = ? AND state = 'cancelled'", id) == 1);
        await().atMost(Duration.ofSeconds(10)).until(() ->
                delta(before, scrape(), "checkout_refunds_total") == 1);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Prometheus after = scrape();
            assertThat(delta(before, after, "checkout_started_total")).isEqualTo(1);
            assertThat(delta(before, after, "checkout_finished_total", "state", "completed")).isEqualTo(1);
            assertThat(delta(before, after, "checkout_finished_total", "state", "cancelled"))
                    .as("a refund after completion is not a second finish").isZero();
            assertThat(delta(before, after, "checkout_started_total") - delta(before, after, "checkout_finished_total"))
                    .isEqualTo(delta(before, after, "checkout_in_flight")).isZero();
        });
    }

    private Prometheus scrape() {
        // actuator needs an operator-read key (SecurityConfiguration.surfaceChain)
        HttpApi.Response r = api.send("GET", "/actuator/prometheus", HttpApi.OPERATOR_KEY, java.util.Map.of(), null);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return new Prometheus(r.body());
    }

    private static long delta(Prometheus before, Prometheus after, String name, String... labels) {
        return Math.round(after.value(name, labels) - before.value(name, labels));
    }
}
