package io.durablecheckout.orchestrator.dashboard;

import io.durablecheckout.api.activity.PaymentLookupOutcome;
import io.durablecheckout.api.values.OperationId;

/**
 * What the payment provider says about an authorization, asked for an operator (not one of the workflow's lookups).
 * The wiring gives the dashboard this port over the activities' provider client.
 */
public interface ProviderLookup {

    record Answer(PaymentLookupOutcome outcome, String reference, String detail) {
    }

    /** False when no provider client runs in this process ({@code checkout.activities.enabled=false}). */
    boolean available();

    /** Asks about {@code authorization}, naming the operation that asks in the provider's request log. */
    Answer lookup(OperationId authorization, OperationId asking);
}
