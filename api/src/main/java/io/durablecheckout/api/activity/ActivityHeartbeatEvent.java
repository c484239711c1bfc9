package io.durablecheckout.api.activity;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.FencingToken;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import org.axonframework.serialization.Revision;

/**
 * A worker on a long activity asks to keep its lease. Published in its own transaction (not the one doing the work,
 * which would make it visible only at the end). Renewal extends the lease only for the owner of the current token:
 * it cannot revive an expired lease, and it does not close the gap between checking a lease and writing, which is
 * why resources check tokens anyway.
 */
@Revision("1")
public record ActivityHeartbeatEvent(CheckoutId checkoutId, Step step, OperationId operationId,
                                     FencingToken fencingToken) {
}
