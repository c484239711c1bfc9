package io.durablecheckout.api.checkout;

import io.durablecheckout.api.values.CheckoutId;
import io.durablecheckout.api.values.OperationId;
import java.time.Instant;
import org.axonframework.serialization.Revision;
/** The next lookup under the original operation id, due at {@code dueAt} (exponential backoff). */
@Revision("1")
public record PaymentReconciliationScheduledEvent(CheckoutId checkoutId, OperationId authorizationOperationId, int lookupNumber, Instant dueAt, String lastAnswer) implements CheckoutEvent {
}
