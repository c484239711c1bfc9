package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.OperationId;
import io.durablecheckout.api.values.Step;
import java.time.Instant;
/** An attempt failed retryably; the same operation id is tried again at {@code retryAt} with a new lease. */
public record ActivityRetryScheduledEvent(CheckoutId checkoutId, Step step, OperationId operationId, int failedAttempt, Instant retryAt, String detail) implements CheckoutEvent {
}
