package io.durablecheckout.api.activity;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/**
 * A resource refused a write because a newer owner had already written: reported so the rejection is visible.
 *
 * @param fencingToken the stale token the worker presented
 * @param highestAccepted the newest token the resource had accepted
 */
@Revision("1")
public record StaleOwnerRejectedEvent(CheckoutId checkoutId, Step step, OperationId operationId,
                                      FencingToken fencingToken, FencingToken highestAccepted, String resource)
        implements ActivityResultEvent {
}
