package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.OperationId;
import java.time.Instant;
/** The next lookup under the original operation id, due at {@code dueAt} (exponential backoff). */
public record PaymentReconciliationScheduledEvent(CheckoutId checkoutId, OperationId authorizationOperationId, int lookupNumber, Instant dueAt, String lastAnswer) implements CheckoutEvent {
}
