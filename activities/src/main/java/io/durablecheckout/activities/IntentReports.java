package io.durablecheckout.activities;

import io.durablecheckout.api.activity.ActivityAttemptFailedEvent;
import io.durablecheckout.api.activity.ActivityResultEvent;
import io.durablecheckout.api.activity.StaleOwnerRejectedEvent;
import io.durablecheckout.api.checkout.ActivityIntent;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.Step;
import org.axonframework.eventhandling.gateway.EventGateway;

import java.util.Locale;

/**
 * What every intent worker does with its resource's outcome, composed into each worker (one per worker, bound to its
 * resource's operations table): the results every step shares (a stale owner refused, a failed attempt), and the
 * report itself, published in the intent's transaction and counted. The lease hold and the pause hook around each
 * intent are {@link IntentHandling}'s.
 */
public final class IntentReports {

    private final EventGateway events;
    private final ActivityMetrics metrics;
    private final String resource;

    public IntentReports(EventGateway events, ActivityMetrics metrics, String operationsTable) {
        this.events = events;
        this.metrics = metrics;
        this.resource = operationsTable;
    }

    /** Registers the step's counters at start, one per outcome it can report, so each series exists at 0. */
    public IntentReports expecting(Step step, Enum<?>[] outcomes) {
        metrics.expect(step, outcomes, resource);
        return this;
    }

    /** The metric tag of an outcome: {@code duplicate} when it was answered from the record, else its name. */
    public static String tag(Enum<?> outcome, boolean replayed) {
        return replayed ? "duplicate" : outcome.name().toLowerCase(Locale.ROOT);
    }

    /** Publishes {@code result}, counted under the outcome ({@code duplicate} when answered from the record). */
    public void publish(ActivityIntent intent, Enum<?> outcome, boolean replayed, ActivityResultEvent result) {
        publish(intent, tag(outcome, replayed), result);
    }

    /** Publishes {@code result}, counted under {@code outcomeTag}. */
    public void publish(ActivityIntent intent, String outcomeTag, ActivityResultEvent result) {
        metrics.executed(intent.step(), outcomeTag);
        events.publish(result);
    }

    /** The report a resource's refusal of a stale owner becomes: the intent's own id and token, and the winner's. */
    public StaleOwnerRejectedEvent stale(ActivityIntent intent, FencingToken highestAccepted) {
        metrics.staleRejected(resource);
        return new StaleOwnerRejectedEvent(intent.checkoutId(), intent.step(), intent.lease().operationId(),
                intent.lease().fencingToken(), highestAccepted, resource);
    }

    /** A retryable failure of this attempt: the checkout tries again under the same operation id. */
    public ActivityAttemptFailedEvent attemptFailed(ActivityIntent intent, String detail) {
        return new ActivityAttemptFailedEvent(intent.checkoutId(), intent.step(), intent.lease().operationId(),
                intent.lease().fencingToken(), detail);
    }
}
