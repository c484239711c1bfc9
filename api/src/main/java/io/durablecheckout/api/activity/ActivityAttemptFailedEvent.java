package io.durablecheckout.api.activity;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/**
 * An attempt failed in a way that is safe to retry under the same operation id (the system refused it, or the
 * operation is idempotent at the provider). Reported instead of thrown so one failing checkout never blocks the
 * processor for the others; the aggregate schedules the retry.
 */
@Revision("1")
public record ActivityAttemptFailedEvent(CheckoutId checkoutId, Step step, OperationId operationId,
                                         FencingToken fencingToken, String detail) implements ActivityResultEvent {
}
