package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import java.time.Instant;
import org.axonframework.serialization.Revision;
/**
 * An attempt failed retryably; the same operation id is tried again at {@code retryAt} with a new lease.
 * <p>
 * Revision 2 renamed {@code detail} to {@code lastFailure} (what the failed attempt reported); revision 1 events are
 * read through an upcaster.
 */
@Revision("2")
public record ActivityRetryScheduledEvent(CheckoutId checkoutId, Step step, OperationId operationId,
                                          int failedAttempt, Instant retryAt, String lastFailure)
        implements CheckoutEvent {
}
