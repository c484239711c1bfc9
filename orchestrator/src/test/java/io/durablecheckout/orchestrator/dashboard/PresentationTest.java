package io.durablecheckout.orchestrator.dashboard;

import io.durablecheckout.orchestrator.readmodel.CheckoutView;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The dashboard's words: durations, the list's last failure, who did what. */
class PresentationTest {

    @Test
    void durations_read_as_people_say_them() {
        assertThat(Presentation.human(Duration.ofSeconds(2))).isEqualTo("2 s");
        assertThat(Presentation.human(Duration.ofSeconds(75))).isEqualTo("1 min 15 s");
        assertThat(Presentation.human(Duration.ofMinutes(5))).isEqualTo("5 min");
        assertThat(Presentation.human(Duration.ofMinutes(185))).isEqualTo("3 h 5 min");
        assertThat(Presentation.human(Duration.ofHours(52))).isEqualTo("2 d 4 h");
        assertThat(Presentation.human(Duration.ofHours(48))).isEqualTo("2 d");
        assertThat(Presentation.human((Duration) null)).isNull();
    }

    @Test
    void a_lookups_pending_answer_is_no_failure() {
        CheckoutView v = new CheckoutView();
        v.activities.put("authorize-payment", activity("unknown", "provider timeout", 1));
        v.activities.put("reconcile-payment", activity("inconclusive", "PENDING", 2));
        assertThat(DashboardQueries.lastFailure(v)).isEqualTo("authorize-payment: provider timeout");
        v.activities.put("reconcile-payment", activity("in_flight", "PENDING", 3));
        assertThat(DashboardQueries.lastFailure(v)).isEqualTo("authorize-payment: provider timeout");
        v.activities.put("send-receipt", activity("retry_scheduled", "SMTP 451", 1));
        assertThat(DashboardQueries.lastFailure(v)).isEqualTo("send-receipt: SMTP 451");
    }

    @Test
    void the_operator_is_named_on_their_own_command_only() {
        Map<String, Object> operatorCommand = Map.of("actor", "operator:ops", "reason", "try again",
                "replay.input", Map.of("kind", "command", "type", "RetryActivityCommand", "actor", "operator:ops"));
        assertThat(Presentation.attribution(operatorCommand)).isEqualTo(
                new Presentation.Attribution("operator:ops", "try again"));
        Map<String, Object> lookupAfterwards = Map.of("actor", "operator:ops", "reason", "try again",
                "replay.input", Map.of("kind", "deadline", "type", "checkout-reconciliation-due"));
        assertThat(Presentation.attribution(lookupAfterwards)).isNull();
        Map<String, Object> workerResult = Map.of("actor", "operator:ops", "replay.input", Map.of("kind", "command",
                "type", "RecordActivityResultCommand", "actor", "operator:ops"));
        assertThat(Presentation.attribution(workerResult)).isNull();
        assertThat(Presentation.attribution(Map.of("actor", "operator:ops", "reason", "carried on"))).isNull();
        Map<String, Object> notification = Map.of("replay.input", Map.of("kind", "command", "type",
                "RecordProviderNotificationCommand", "payload", Map.of("notificationId", "evt-9", "outcome",
                        "AUTHORIZED", "providerReference", "psp-1")));
        assertThat(Presentation.attribution(notification)).isEqualTo(new Presentation.Attribution(
                "provider (notification evt-9)", "the provider notified AUTHORIZED, reference psp-1"));
    }

    @Test
    void a_pending_cancellation_says_what_it_waits_for() {
        CheckoutView v = new CheckoutView();
        assertThat(Presentation.cancellation(v, null)).isNull();
        v.cancellationRequested = true;
        v.cancelReason = "customer_request";
        v.state = "manual_review";
        Map<String, Object> c = Presentation.cancellation(v, new Presentation.Attribution("tenant:shop", null));
        assertThat(c).containsEntry("pending", true).containsEntry("requestedBy", "tenant:shop");
        assertThat((String) c.get("status")).contains("an operator's cancel compensates");
        v.state = "void_pending";
        assertThat(Presentation.cancellation(v, null)).containsEntry("pending", false);
        v.state = "cancelled";
        assertThat(Presentation.cancellation(v, null)).containsEntry("status", "done: cancelled");
    }

    @Test
    void only_a_live_lease_is_shown_in_workflow_order() {
        CheckoutView v = new CheckoutView();
        v.activities.put("release-stock", activity("in_flight", null, 1));
        v.activities.put("reserve-stock", activity("succeeded", "reserved", 1));
        v.activities.get("release-stock").leaseExpiresAt = Instant.parse("2026-01-01T10:00:00Z");
        v.activities.get("reserve-stock").leaseExpiresAt = Instant.parse("2026-01-01T09:00:00Z");
        var rows = Presentation.activityRows(v);
        assertThat(rows).extracting(r -> r.get("step")).containsExactly("reserve-stock", "release-stock");
        assertThat(rows.get(0).get("leaseExpiresAt")).isNull();
        assertThat(rows.get(1).get("leaseExpiresAt")).isEqualTo(Instant.parse("2026-01-01T10:00:00Z"));
    }

    private static CheckoutView.Activity activity(String status, String outcome, int attempt) {
        CheckoutView.Activity a = new CheckoutView.Activity();
        a.status = status;
        a.lastOutcome = outcome;
        a.attempt = attempt;
        return a;
    }
}
